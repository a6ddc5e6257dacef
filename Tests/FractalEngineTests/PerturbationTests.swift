import ArbitraryPrecision
import Foundation
import FractalEngine
import FractalNumerics
import Testing

/// Renders by perturbation and compares every pixel with direct MPFR iteration, as the
/// oracle does: at bits = -log2(s) + 64 and again at 2 bits + 64, skipping pixels where the
/// two runs disagree on the counts (or on smooth by more than 1e-6, for the smooth check).
/// Escape counts must match exactly; smooth within `smoothTolerance` (nil: not compared).
func perturbationMismatches(
    _ location: Location, width: Int, height: Int, delta: DeltaType?, mode: GlitchMode = .rebase,
    placement: ReferencePlacement = .center, approximation: ApproximationMethod = .linear,
    smoothTolerance: Double?, configure: (inout PerturbationSettings) -> Void = { _ in }
) throws -> (bad: [(Int, Int, PixelResult, PixelResult)], report: RenderReport) {
    var settings = RenderSettings(
        width: width, height: height, path: .perturbation,
        perturbation: PerturbationSettings(glitchMode: mode, placement: placement, deltaType: delta))
    settings.perturbation.approximation = approximation
    configure(&settings.perturbation)
    let result = try Renderer.render(location: location, settings: settings)
    let viewport = try Viewport(location: location, width: width, height: height)
    let bits = Int(-viewport.log2Spacing.rounded(.down)) + 64
    let mpfr = MPFREscape(precision: Precision(bits: 2 * bits + 64))
    let check = MPFREscape(precision: Precision(bits: bits))
    let fine = try Viewport(location: location, width: width, height: height)
    var bad: [(Int, Int, PixelResult, PixelResult)] = []
    for y in 0..<height {
        for x in 0..<width {
            let want = mpfr.iterate(
                pixelX: x, pixelY: y, viewport: fine, family: location.family, maxIterations: location.maxIterations)
            let other = check.iterate(
                pixelX: x, pixelY: y, viewport: fine, family: location.family, maxIterations: location.maxIterations)
            guard want.n2 == other.n2 && want.nBig == other.nBig else { continue }  // unstable
            let smoothStable = want.smooth.isNaN || Swift.abs(want.smooth - other.smooth) <= 1e-6
            let got = result.field[x, y]
            var ok = want.n2 == got.n2 && want.nBig == got.nBig
            if let tol = smoothTolerance, ok, smoothStable, !want.smooth.isNaN {
                ok = Swift.abs(want.smooth - got.smooth) <= tol
            }
            if !ok { bad.append((x, y, want, got)) }
        }
    }
    return (bad, result.report)
}

@Suite("Perturbation against MPFR")
struct PerturbationTests {
    // The center of the pub_c_e55 oracle location (ckormanyos/mandelbrot deep dive 02).
    static let e55Re = "-1.29518908214777745701706417718568192670656646088488846921745350"
    static let e55Im = "0.44093698267832013888090367835626261211321462743139620368266100"

    @Test(
        "Mandelbrot at 1e-30 in every delta type: counts exact; smooth too with double-double deltas",
        arguments: [DeltaType.double, .floatExp, .doubleDouble])
    func mandelbrot(delta: DeltaType) throws {
        let loc = Location(centerRe: Self.e55Re, centerIm: Self.e55Im, radius: "1e-30", maxIterations: 5000)
        let (bad, report) = try perturbationMismatches(
            loc, width: 16, height: 12, delta: delta,
            smoothTolerance: delta == .doubleDouble ? 1e-9 : nil)
        #expect(report.path == .perturbation)
        #expect(report.perturbation?.deltaType == delta)
        #expect(bad.isEmpty, "\(bad.prefix(3))")
    }

    @Test("FloatExp deltas at 1e-400, beyond Double's range")
    func beyondDouble() throws {
        let loc = Location(centerRe: Self.e55Re, centerIm: Self.e55Im, radius: "1e-400", maxIterations: 5000)
        let (bad, report) = try perturbationMismatches(loc, width: 8, height: 6, delta: nil, smoothTolerance: 1e-6)
        #expect(report.perturbation?.deltaType == .floatExp)
        #expect(bad.isEmpty, "\(bad.prefix(3))")
    }

    @Test("Multibrot by its binomial expansion", arguments: [3, 4, 7])
    func multibrot(power: Int) throws {
        let loc = Location(
            family: .multibrot(power: power), centerRe: "-0.2", centerIm: "0.75", radius: "1e-24", maxIterations: 2000)
        let (bad, _) = try perturbationMismatches(loc, width: 12, height: 8, delta: .double, smoothTolerance: nil)
        #expect(bad.isEmpty, "\(bad.prefix(3))")
    }

    /// c = -0.8 + 0.156i lies outside the Mandelbrot set: its critical orbit escapes, and
    /// pixels that outlive it lose Double's precision, so the renderer picks double-double
    /// deltas by itself there (and this test checks Double deltas only on c inside the set).
    @Test("Julia: the reference pixel's orbit, then the critical orbit after rebasing")
    func julia() throws {
        // The center of the pub_g_julia_e20 oracle location.
        let loc = Location(
            family: .julia(re: "-0.8", im: "0.156"),
            centerRe: "0.949819428088212909012650746160435775426144325937154520501015",
            centerIm: "0.352192192042892595246325212080304828332306304685579686045675", radius: "1e-24",
            maxIterations: 3000)
        let (bad, report) = try perturbationMismatches(loc, width: 12, height: 8, delta: nil, smoothTolerance: 1e-9)
        #expect(report.perturbation?.deltaType == .doubleDouble)
        #expect(bad.isEmpty, "\(bad.prefix(3))")
        // c = -0.12 + 0.75i (inside the set, the Douady rabbit), at its repelling fixed point
        // (1 + sqrt(1 - 4c)) / 2: Double deltas.
        let rabbit = Location(
            family: .julia(re: "-0.12", im: "0.75"),
            centerRe: "1.27662776832991328625125781879338401900776523959661133706817",
            centerIm: "-0.482856801278703603991368417705517043355077756160892583919134", radius: "1e-22",
            maxIterations: 3000)
        let (badRabbit, rabbitReport) = try perturbationMismatches(
            rabbit, width: 12, height: 8, delta: nil, smoothTolerance: nil)
        #expect(rabbitReport.perturbation?.deltaType == .double)
        #expect(badRabbit.isEmpty, "\(badRabbit.prefix(3))")
    }

    @Test("probe placement takes the longest orbit of a 5 x 5 probe when the center escapes")
    func probe() throws {
        // The pub_f_multibrot3_e30 center: a Misiurewicz point, whose orbit escapes at 385 here.
        let loc = Location(
            family: .multibrot(power: 3), centerRe: "-0.2618414542554664348109050619820652468621750391587391244078",
            centerIm: "0.976905989884677750808361208130370343577507366118058104798673", radius: "1e-24",
            maxIterations: 2000)
        let settings = RenderSettings(
            width: 12, height: 8, path: .perturbation, perturbation: PerturbationSettings(placement: .probe))
        let probed = try Renderer.render(location: loc, settings: settings).report.perturbation!
        let centered = try Renderer.render(
            location: loc, settings: RenderSettings(width: 12, height: 8, path: .perturbation)
        ).report.perturbation!
        #expect(centered.referenceEscaped)
        #expect(probed.referenceLength >= centered.referenceLength)
        let (bad, _) = try perturbationMismatches(
            loc, width: 12, height: 8, delta: .double, placement: .probe, smoothTolerance: 1e-6)
        #expect(bad.isEmpty, "\(bad.prefix(3))")
    }

    @Test("detect mode corrects its glitches with extra references and agrees with MPFR")
    func detect() throws {
        let loc = Location(centerRe: Self.e55Re, centerIm: Self.e55Im, radius: "1e-30", maxIterations: 5000)
        let (bad, report) = try perturbationMismatches(
            loc, width: 16, height: 12, delta: .double, mode: .detect, smoothTolerance: nil)
        #expect(bad.isEmpty, "\(bad.prefix(3))")
        #expect(report.perturbation?.uncorrectedPixels == 0)
    }

    /// BLA must take most of the iterations and change nothing: the Dinkydau flake's centre
    /// at 1e-50 (its orbit passes near 0 every 28 steps, so steps end and restart often).
    @Test("BLA skips most iterations and agrees with MPFR; without it the same counts")
    func bla() throws {
        let loc = Location(centerRe: Self.flakeRe, centerIm: Self.flakeIm, radius: "5e-51", maxIterations: 100_000)
        let (bad, report) = try perturbationMismatches(
            loc, width: 16, height: 12, delta: .double, smoothTolerance: 1e-6)
        #expect(bad.isEmpty, "\(bad.prefix(3))")
        let p = try #require(report.perturbation)
        #expect(p.approximationSteps > 0)
        // Pixels escape after about 2300 iterations: BLA leaves far fewer loop steps.
        #expect(p.loopSteps * 4 < report.iterations, "\(p.loopSteps) loop steps for \(report.iterations) iterations")
        var off = RenderSettings(width: 16, height: 12, path: .perturbation)
        off.perturbation.usesApproximation = false
        let plain = try Renderer.render(location: loc, settings: off)
        let on = try Renderer.render(
            location: loc, settings: RenderSettings(width: 16, height: 12, path: .perturbation))
        #expect(plain.field.n2 == on.field.n2 && plain.field.nBig == on.field.nBig)
        #expect(plain.report.perturbation?.approximationSteps == 0)
    }

    /// Near c = -2 the orbit sits at |Z| = 2 (to far below Double's resolution) for hundreds
    /// of steps: BLA steps and LA entries may pass those steps only by the orbit's exact gap
    /// 4 - |Z|^2.
    @Test(
        "BLA and LA along the antenna tip, where |Z| = 2 in Double: counts still exact",
        arguments: [ApproximationMethod.bla, .linear])
    func antennaTip(method: ApproximationMethod) throws {
        let loc = Location(
            centerRe: "-1.99999999999999999999999999999999999999999999999999999999999999987",
            centerIm: "1e-70", radius: "1e-75", maxIterations: 5000)
        let (bad, report) = try perturbationMismatches(
            loc, width: 12, height: 8, delta: .double, approximation: method, smoothTolerance: 1e-6)
        #expect(bad.isEmpty, "\(bad.prefix(3))")
        let p = try #require(report.perturbation)
        #expect(p.approximationSteps > 0)
        // Without the gaps every step at |Z| = 2 is a plain one: as many loop steps as iterations.
        #expect(p.loopSteps * 2 < report.iterations, "\(p.loopSteps) loop steps for \(report.iterations) iterations")
    }

    /// The precision estimate must flag every pixel that BLA's truncation moves by more than
    /// 1e-7 in smooth. Pixel (237, 221) of fractalshades' 800 x 800 flake view (case b) came
    /// out 4.5e-7 off, unflagged, while BLA errors were taken relative to dc instead of dz at
    /// each step. Its 5 x 5 neighbourhood is rendered against the view's own reference (an
    /// orbit of the view's center at the same pixel spacing, loaded from a file).
    @Test("BLA's truncation is caught by the precision estimate: flake 1e-50, pixels within 1e-7 of MPFR")
    func blaTruncationFlagged() throws {
        let full = Location(centerRe: Self.flakeRe, centerIm: Self.flakeIm, radius: "5e-51", maxIterations: 1_000_000)
        let spacingRadius = { (pixels: Double) in "\(pixels * 1.25)e-53" }
        // The view's reference orbit: its center, at the 800 x 800 view's spacing.
        let orbitFile = NSTemporaryDirectoryPath() + "/fathom-flake-\(getpid()).orbit"
        defer { removeFile(orbitFile) }
        var save = RenderSettings(width: 8, height: 8, path: .perturbation)
        save.perturbation.saveReference = orbitFile
        _ = try Renderer.render(
            location: Location(
                centerRe: Self.flakeRe, centerIm: Self.flakeIm, radius: spacingRadius(4),
                maxIterations: 1_000_000), settings: save)
        let viewport = try Viewport(location: full, width: 800, height: 800)
        let point = viewport.exactPoint(x: 237, y: 221)
        let window = Location(
            centerRe: point.re.decimalString(), centerIm: point.im.decimalString(),
            radius: spacingRadius(2.5), maxIterations: full.maxIterations)
        var settings = RenderSettings(width: 5, height: 5, path: .perturbation)
        settings.perturbation.loadReference = orbitFile
        let result = try Renderer.render(location: window, settings: settings)
        let windowViewport = try Viewport(location: window, width: 5, height: 5)
        let bits = Int(-windowViewport.log2Spacing.rounded(.down)) + 64
        let mpfr = MPFREscape(precision: Precision(bits: bits))
        var worst = 0.0
        for y in 0..<5 {
            for x in 0..<5 {
                let want = mpfr.iterate(
                    pixelX: x, pixelY: y, viewport: windowViewport, family: window.family,
                    maxIterations: window.maxIterations)
                let got = result.field[x, y]
                #expect(want.n2 == got.n2 && want.nBig == got.nBig, "pixel \(x), \(y)")
                worst = Swift.max(worst, Swift.abs(want.smooth - got.smooth))
            }
        }
        #expect(worst <= 1e-7, "smooth off by \(worst)")
        #expect(result.report.perturbation?.approximationSteps ?? 0 > 0)
    }

    @Test("a reference cache serves a zoom-out sequence: one orbit, identical images")
    func cache() throws {
        let cache = ReferenceCache()
        var shared = RenderSettings(width: 16, height: 12, path: .perturbation)
        shared.perturbation.cache = cache
        let fresh = RenderSettings(width: 16, height: 12, path: .perturbation)
        for radius in ["1e-45", "1e-40", "1e-35"] {
            let loc = Location(centerRe: Self.e55Re, centerIm: Self.e55Im, radius: radius, maxIterations: 5000)
            let a = try Renderer.render(location: loc, settings: shared)
            let b = try Renderer.render(location: loc, settings: fresh)
            // The cached orbit is of the center rounded to more bits: the same counts, smooth
            // values within rounding.
            #expect(a.field.n2 == b.field.n2 && a.field.nBig == b.field.nBig, "radius \(radius)")
            let worst = zip(a.field.smooth, b.field.smooth).map { $0.isNaN ? 0 : Swift.abs(Double($0 - $1)) }.max() ?? 0
            #expect(worst < 1e-6, "radius \(radius): smooth differs by \(worst)")
        }
        // The deepest frame's orbit (most precision) served both shallower frames.
        #expect(cache.orbitHits == 2)
    }

    @Test(
        "a cache that stores no orbits (a sequence's frames after priming) serves what it holds and keeps nothing new")
    func cacheWithoutStoring() throws {
        let cache = ReferenceCache()
        var settings = RenderSettings(width: 16, height: 12, path: .perturbation)
        settings.perturbation.cache = cache
        let deep = Location(centerRe: Self.e55Re, centerIm: Self.e55Im, radius: "1e-45", maxIterations: 5000)
        let shallow = Location(centerRe: Self.e55Re, centerIm: Self.e55Im, radius: "1e-35", maxIterations: 5000)
        cache.storesOrbits = false
        let unstored = try Renderer.render(location: deep, settings: settings)
        #expect(cache.computedOrbits == 0 && cache.orbitHits == 0)
        cache.storesOrbits = true
        let stored = try Renderer.render(location: deep, settings: settings)
        #expect(cache.computedOrbits == 1 && stored.field == unstored.field)
        cache.storesOrbits = false
        _ = try Renderer.render(location: shallow, settings: settings)
        #expect(cache.computedOrbits == 1 && cache.orbitHits == 1)
    }

    @Test("the reference orbit's rounding counts in the precision estimate: a pixel near a deep minibrot matches MPFR")
    func referenceRounding() throws {
        // The minibrot `fathom find --preset seahorse --depth 1e-100` ends on (period 2,496).
        // With the orbit at 64 bits below the spacing, pixel (41, 12) of a 64 x 36 view came
        // out 0.065 off in smooth (n2 right) whatever the deltas and BLA; the estimate did not
        // count the orbit's own rounding, so the 106-bit delta pass passed it.
        let loc = Location(
            centerRe: Self.deepMiniRe, centerIm: Self.deepMiniIm, radius: "7.6012e-103", maxIterations: 249600)
        let viewport = try Viewport(location: loc, width: 64, height: 36)
        var settings = RenderSettings(width: 64, height: 36)
        let pixels = [(41, 12), (0, 0), (20, 30)]
        settings.onlyPixels = pixels.map { $0.1 * 64 + $0.0 }
        let result = try Renderer.render(location: loc, settings: settings)
        let exact = MPFREscape(precision: viewport.precision)
        for (x, y) in pixels {
            let want = exact.iterate(
                pixelX: x, pixelY: y, viewport: viewport, family: .mandelbrot, maxIterations: loc.maxIterations)
            let got = result.field[x, y]
            #expect(got.n2 == want.n2 && got.nBig == want.nBig, "(\(x), \(y))")
            #expect(Swift.abs(got.smooth - want.smooth) < 1e-7, "(\(x), \(y)): \(got.smooth) vs MPFR \(want.smooth)")
        }
    }

    static let deepMiniRe =
        "-7.4823081825241153371437061552363128262704844324392861938695801918074533230695297621278336427913393856544306554880760598005e-1"
    static let deepMiniIm =
        "-9.477031321056103275834814419488636578848061849536075205411517361767721153494565139180955924359255124332998322226300330416e-2"

    static let flakeRe =
        "-1.99996619445037030418434688506350579675531241540724851511761922944801584242342684381376129778868913812287046406560949864353810575744772166485672496092803920095332"
    static let flakeIm =
        "-0.00000000000000000000000000000000030013824367909383240724973039775924987346831190773335270174257280120474975614823581185647299288414075519224186504978181625478529"
}

@Suite("Reference orbits")
struct ReferenceOrbitTests {
    /// Deep orbits share their steps among threads (`ReferenceThreading`): two in lockstep, or
    /// a team over each product's Karatsuba pieces (`SplitProduct`, rounded once). The same
    /// operations and roundings, so the same orbit, low words, gaps and escape as one thread
    /// computes, at precisions that are and are not whole limbs, with 1 to 3 levels of pieces.
    @Test("an orbit computed on 2 to 10 threads equals the single-threaded one, bit for bit")
    func threadedOrbits() throws {
        let pair = ReferenceThreading.pairMinimumBits, team = ReferenceThreading.teamMinimumBits
        for (bits, threadCounts, stepScale) in [
            (pair, [2], 1), (8199, [2, 3, 4], 1), (team + 3, [3, 10], 8),
        ] {
            let p = Precision(bits: bits)
            for (re, im, fullSteps) in [
                (PerturbationTests.e55Re, PerturbationTests.e55Im, 3000),
                ("-1.99999999999999999999999999999999999999", "1e-45", 200), ("0.3", "0.5", 1000),
            ] {
                let steps = fullSteps / stepScale
                let c = try BigComplex(parsingRe: re, im: im, precision: p)
                let one = try ReferenceOrbit.compute(
                    point: c, power: 2, juliaC: nil, maxIterations: steps, precision: p, lowWords: true)
                for threads in threadCounts {
                    let expected: ReferenceThreading = threads == 2 || bits < team ? .pair : .team(threads: threads)
                    #expect(ReferenceThreading.choose(bits: bits, power: 2, threads: threads) == expected)
                    let many = try ReferenceOrbit.compute(
                        point: c, power: 2, juliaC: nil, maxIterations: steps, precision: p, lowWords: true,
                        threads: threads)
                    #expect(
                        one.compressed == many.compressed,
                        "\(re) at \(bits) bits on \(threads) threads")
                    #expect(one.escaped == many.escaped && one.escapeGaps == many.escapeGaps, "\(re), \(threads)")
                    if re.hasPrefix("-1.99") { #expect(many.escapeGaps.count > 20) }  // x^2 and y^2 shared too
                }
                // A team below the precision it is chosen from (five threads, two levels of pieces).
                let forced = try ReferenceOrbit.compute(
                    point: c, power: 2, juliaC: nil, maxIterations: steps, precision: p, lowWords: true,
                    threading: .team(threads: 5))
                #expect(one.compressed == forced.compressed && one.escapeGaps == forced.escapeGaps, "\(re)")
                // And the orbit is MPFR's: z(n) at step 100.
                var z = BigComplex(precision: p)
                let n = Swift.min(100, one.count - 1)
                for _ in 0..<n { z = z.squared + c }
                #expect(one.compressed.decoded().re[n] == z.re.doubleValue)
            }
        }
        // Julia orbits (z(0) the point) share their steps the same way.
        let p = Precision(bits: pair)
        let z0 = try BigComplex(parsingRe: "0.1", im: "-0.2", precision: p)
        let jc = try BigComplex(parsingRe: "-0.8", im: "0.156", precision: p)
        let one = try ReferenceOrbit.compute(point: z0, power: 2, juliaC: jc, maxIterations: 500, precision: p)
        let two = try ReferenceOrbit.compute(
            point: z0, power: 2, juliaC: jc, maxIterations: 500, precision: p, threads: 2)
        #expect(one.compressed == two.compressed && one.count > 50)
    }

    @Test("the stored orbit equals direct MPFR iteration rounded to Double, and survives a file round trip")
    func orbitAndFile() throws {
        let p = Precision(bits: 300)
        let c = try BigComplex(parsingRe: PerturbationTests.e55Re, im: PerturbationTests.e55Im, precision: p)
        let orbit = try ReferenceOrbit.compute(
            point: c, power: 2, juliaC: nil, maxIterations: 500, precision: p, lowWords: true)
        #expect(orbit.count == 501)  // the e55 center's orbit runs past 3000 steps
        #expect(!orbit.escaped)
        var z = BigComplex(precision: p)
        let stored = orbit.compressed.decoded()
        for m in 1...500 {
            z = z.squared + c
            if m % 50 == 0 {
                #expect(stored.re[m] == z.re.doubleValue && stored.im[m] == z.im.doubleValue)
                #expect(DoubleDouble(hi: stored.re[m], lo: stored.reLow[m]) == z.re.doubleDoubleValue)
            }
        }
        let path = NSTemporaryDirectoryPath() + "/fathom-orbit-\(UInt32.random(in: 0...UInt32.max)).bin"
        defer { removeFile(path) }
        try orbit.write(to: path)
        let back = try ReferenceOrbit.read(from: path)
        #expect(
            back.compressed == orbit.compressed && back.escaped == orbit.escaped)
        #expect(back.point == orbit.point)
        // Near c = -2 the orbit sits at |Z| = 2 in Double: the exact gaps 4 - |Z|^2 are kept,
        // equal to MPFR's, and survive the file.
        let tip = try BigComplex(parsingRe: "-1.99999999999999999999999999999999999999", im: "0", precision: p)
        let nearTwo = try ReferenceOrbit.compute(point: tip, power: 2, juliaC: nil, maxIterations: 40, precision: p)
        #expect(nearTwo.escapeGaps.count > 20)
        var w = BigComplex(precision: p)
        for m in 1...40 {
            w = w.squared + tip
            if let gap = nearTwo.escapeGaps[m] {
                let exact = (BigFloat(4, precision: p) - (w.re * w.re + w.im * w.im)).floatExpValue
                #expect(gap == exact, "m \(m)")
            }
        }
        try nearTwo.write(to: path)
        #expect(try ReferenceOrbit.read(from: path).escapeGaps == nearTwo.escapeGaps)
        #expect(throws: ReferenceFileError.self) { try ReferenceOrbit.read(from: path + ".missing") }
    }

    /// From 768 bits the escape test near |Z| = 2 runs first on Z's leading q bits (q from 192
    /// up to p / 4, fourfold) and falls back to the exact squares where those do not settle it
    /// (NearEscapeTest). Orbits at 4096 bits whose gaps 4 - |Z|^2 sweep from 2^-997 (exact
    /// squares) through 2^-330 (q = 768, then q from the last gap) to 2^-40, and escapes by
    /// 2^-62, 2^-198 and 2^-997, on one and two threads: every gap and the escape step are
    /// direct MPFR iteration's.
    @Test("the escape test from Z's leading bits gives MPFR's gaps and escapes, bit for bit")
    func shortEscapeTest() throws {
        let p = Precision(bits: 4096)
        for (re, im, limit) in [
            ("-1." + String(repeating: "9", count: 300), "0", 600),
            ("-1." + String(repeating: "9", count: 97), "0", 200),
            ("-1.99999999999999999999999999999", "1e-50", 200), ("-2.00000000000000000001", "0", 5),
            ("-2." + String(repeating: "0", count: 59) + "1", "0", 5),
            ("-2." + String(repeating: "0", count: 299) + "1", "0", 5),
        ] {
            let c = try BigComplex(parsingRe: re, im: im, precision: p)
            for threading in [ReferenceThreading.serial, .pair] {
                let orbit = try ReferenceOrbit.compute(
                    point: c, power: 2, juliaC: nil, maxIterations: limit, precision: p, threading: threading)
                var z = BigComplex(precision: p)
                var escapedAt = 0
                for m in 1...limit {
                    z = z.squared + c
                    let r2 = z.re * z.re + z.im * z.im
                    if r2 > BigFloat(4, precision: p) {
                        escapedAt = m
                        break
                    }
                    if let gap = orbit.escapeGaps[m] {
                        #expect(gap == (BigFloat(4, precision: p) - r2).floatExpValue, "\(re) m \(m)")
                    }
                }
                #expect(orbit.escaped == (escapedAt > 0) && orbit.count - 1 == (escapedAt > 0 ? escapedAt : limit))
                if escapedAt == 0 { #expect(orbit.escapeGaps.count > 20, "\(re)") }
            }
        }
    }
}
