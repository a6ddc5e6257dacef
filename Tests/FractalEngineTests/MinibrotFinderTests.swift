import ArbitraryPrecision
import FractalEngine
import FractalNumerics
import Testing

@Suite("Finding minibrots")
struct MinibrotFinderTests {
    static let seahorse = (re: "-0.746223962861", im: "-0.0959468433527", radius: 3.725e-3)

    /// z_n(c) for n = 1 ... count, in MPFR at c's precision.
    static func orbit(_ c: BigComplex, _ count: Int) -> [BigComplex] {
        var z = BigComplex(precision: c.precision)
        var out: [BigComplex] = []
        for _ in 0..<count {
            z = z.squared + c
            out.append(z)
        }
        return out
    }

    @Test("the period-3 minibrot: its nucleus solves c^3 + 2c^2 + c + 1 = 0 to the working precision")
    func periodThree() throws {
        let p = Precision(bits: 128)
        let near = try BigComplex(parsingRe: "-1.76", im: "0.004", precision: p)
        let m = try #require(MinibrotFinder.find(near: near, radius: FloatExp(0.02)))
        #expect(m.period == 3)
        let c = m.nucleus.re
        #expect(m.nucleus.im.floatExpValue.log2Magnitude < -100)
        // z_3(c) = c (c^3 + 2c^2 + c + 1): the cubic vanishes at the nucleus.
        let one = BigFloat(1, precision: c.precision)
        let value = ((c + BigFloat(2, precision: c.precision)) * c + one) * c + one
        #expect(value.floatExpValue.log2Magnitude < -100, "\(value)")
        #expect(Swift.abs(c.doubleValue - -1.7548776662466927) < 1e-15)
        // Its size: the whole set scaled by about 1/53 (the period-3 minibrot spans about
        // 0.04 on the real axis, from -1.7864 to -1.7500).
        #expect(m.size.doubleValue > 0.015 && m.size.doubleValue < 0.025, "\(m.size.doubleValue)")
    }

    @Test(
        "--depth 1e-100 from the Seahorse Valley preset ends on a minibrot smaller than that, its nucleus exact and its period minimal"
    )
    func descent() throws {
        let center = try BigComplex(parsingRe: Self.seahorse.re, im: Self.seahorse.im, precision: Precision(bits: 128))
        let levels = try #require(
            MinibrotFinder.descend(from: center, radius: FloatExp(Self.seahorse.radius), to: FloatExp(1e-100)))
        let m = levels.last!.minibrot
        #expect((m.size * FloatExp(4)).doubleValue < 1e-100)
        #expect(levels.count >= 2)
        // Periods rise and sizes fall level by level.
        for (a, b) in zip(levels, levels.dropFirst()) {
            #expect(b.minibrot.period > a.minibrot.period && b.minibrot.size < a.minibrot.size)
        }
        // The nucleus: z_p = 0 to the working precision (Newton's next step is far below the
        // minibrot's size), and no proper divisor d of p has z_d near 0 (p is its period).
        #expect(m.newtonStep < m.size * FloatExp(significand: 1, exponent: -80))
        let z = Self.orbit(m.nucleus, m.period)
        let zp = z[m.period - 1]
        let zpMagnitude = FloatExp.complexMagnitude(zp.re.floatExpValue, zp.im.floatExpValue)
        #expect(zpMagnitude < FloatExp(significand: 1, exponent: -60))
        for d in 1..<m.period where m.period % d == 0 {
            let v = FloatExp.complexMagnitude(z[d - 1].re.floatExpValue, z[d - 1].im.floatExpValue)
            #expect(FloatExp(1e-6) < v, "z_\(d) = \(v.doubleValue)")
        }
        // Its view (nucleus at the center, radius 4 |size|) shows it: the center pixel stays
        // bounded, the edges escape.
        let location = MinibrotFinder.location(of: m, iterations: 1000)
        var settings = RenderSettings(width: 9, height: 9)
        settings.onlyPixels = [40, 0, 8, 72, 80]
        let result = try Renderer.render(location: location, settings: settings)
        #expect(result.field.nBig[40] == 0)
        #expect([0, 8, 72, 80].allSatisfy { result.field.nBig[$0] > 0 })
    }

    @Test("--reference nucleus: a found nucleus in view serves as a reference that never escapes, with the same counts")
    func nucleusReference() throws {
        let center = try BigComplex(parsingRe: Self.seahorse.re, im: Self.seahorse.im, precision: Precision(bits: 128))
        let levels = try #require(
            MinibrotFinder.descend(from: center, radius: FloatExp(Self.seahorse.radius), to: FloatExp(1e-25)))
        let m = levels.last!.minibrot
        // The view around the minibrot, its center moved off the nucleus by a quarter of the radius.
        var location = MinibrotFinder.location(of: m, iterations: 1000)
        let radius = try BigFloat(parsing: location.radius, precision: Precision(bits: 64))
        let shifted =
            try BigFloat(parsing: location.centerRe, precision: m.nucleus.precision) + radius.timesPowerOfTwo(-2)
        location = Location(
            centerRe: shifted.decimalString(), centerIm: location.centerIm, radius: location.radius,
            maxIterations: location.maxIterations)
        var settings = RenderSettings(width: 24, height: 16, path: .perturbation)
        settings.perturbation.placement = .center
        let atCenter = try Renderer.render(location: location, settings: settings)
        settings.perturbation.placement = .nucleus
        let atNucleus = try Renderer.render(location: location, settings: settings)
        // The default placement takes the same nucleus: the minibrot fills the view.
        settings.perturbation.placement = .automatic
        let automatic = try Renderer.render(location: location, settings: settings)
        #expect(automatic.field == atNucleus.field)
        #expect(automatic.report.perturbation?.references[0].re == atNucleus.report.perturbation?.references[0].re)
        let report = try #require(atNucleus.report.perturbation)
        // One period of the nucleus's orbit, wrapped by rebasing (a never-escaping reference).
        #expect(
            !report.referenceEscaped && report.referencePeriod == m.period && report.referenceLength == m.period + 1)
        #expect(m.period < location.maxIterations)
        let used = try BigFloat(parsing: report.references[0].re, precision: m.nucleus.precision)
        #expect((used - m.nucleus.re).magnitude.floatExpValue < m.size * FloatExp(1e-6))
        #expect(atCenter.report.perturbation!.references[0].re != report.references[0].re)
        #expect(atCenter.field.n2 == atNucleus.field.n2 && atCenter.field.nBig == atNucleus.field.nBig)
        let worst =
            zip(atCenter.field.smooth, atNucleus.field.smooth).map { $0.isNaN ? 0 : Swift.abs($0 - $1) }.max() ?? 0
        #expect(worst < 1e-6)
    }

    @Test(
        "the default placement takes a nucleus only where its minibrot dominates the view; elsewhere the center, unchanged"
    )
    func automaticPlacement() throws {
        func render(radius: String, _ placement: ReferencePlacement) throws -> RenderResult {
            let location = Location(
                centerRe: Self.seahorse.re, centerIm: Self.seahorse.im, radius: radius, maxIterations: 100_000)
            var settings = RenderSettings(width: 16, height: 9, path: .perturbation)
            settings.perturbation.placement = placement
            return try Renderer.render(location: location, settings: settings)
        }
        // The Seahorse preset's view holds the period-33 minibrot, a fifth of its radius.
        let dominated = try render(radius: "3.725e-3", .automatic)
        #expect(dominated.report.perturbation?.referencePeriod == 33)
        let centered = try render(radius: "3.725e-3", .center)
        #expect(dominated.field.n2 == centered.field.n2 && dominated.field.nBig == centered.field.nBig)
        // 1e-6 around the same center: no minibrot dominates; the center's orbit, as with
        // `.center`, to the byte.
        let plain = try render(radius: "1e-6", .automatic)
        let report = try #require(plain.report.perturbation)
        #expect(report.referencePeriod == nil && report.referenceNote == nil)
        #expect(plain.field == (try render(radius: "1e-6", .center)).field)
    }

    @Test(
        "where Newton's method is over its budget, the center's orbit ends at the dominant minibrot's period: the whole orbit's counts"
    )
    func orbitEndsAtPeriod() throws {
        // The Seahorse view holding the period-33 minibrot, with no time for Newton's method:
        // the center's orbit ends at 33 (34 values, not escaped) and pixels rebase onto its
        // start there. Counts equal the center's whole orbit's, smooth values within 1e-6.
        let location = Location(
            centerRe: Self.seahorse.re, centerIm: Self.seahorse.im, radius: "3.725e-3", maxIterations: 100_000)
        var settings = RenderSettings(width: 16, height: 9, path: .perturbation)
        settings.perturbation.newtonSeconds = 0
        let ended = try Renderer.render(location: location, settings: settings)
        let report = try #require(ended.report.perturbation)
        #expect(report.referencePeriod == 33 && !report.referenceIsNucleus)
        #expect(!report.referenceEscaped && report.referenceLength == 34)
        settings.perturbation.placement = .center
        let whole = try Renderer.render(location: location, settings: settings)
        #expect(whole.report.perturbation?.referenceLength ?? 0 > 34)
        #expect(ended.field.n2 == whole.field.n2 && ended.field.nBig == whole.field.nBig)
        let worst = zip(ended.field.smooth, whole.field.smooth).map { $0.isNaN ? 0 : Swift.abs($0 - $1) }.max() ?? 0
        #expect(worst < 1e-6)
    }

    @Test(
        "the period watch on a reference orbit finds the period MinibrotFinder's MPFR search finds, cached or computed")
    func periodWatch() throws {
        let precision = Precision(bits: 128)
        let center = try BigComplex(parsingRe: Self.seahorse.re, im: Self.seahorse.im, precision: precision)
        let radius = FloatExp(Self.seahorse.radius)
        let period = try #require(
            MinibrotFinder.period(near: center, radius: radius, maxPeriod: 10_000, precision: precision))
        let watch = PeriodWatch(radius: radius, maxPeriod: 10_000, minimumLog2Size: radius.log2Magnitude - 4)
        let orbit = try ReferenceOrbit.compute(
            point: center, power: 2, juliaC: nil, maxIterations: 1000, precision: precision)
        #expect(watch.scan(orbit)?.period == period)
        do {
            _ = try ReferenceOrbit.compute(
                point: center, power: 2, juliaC: nil, maxIterations: 1000, precision: precision, watch: watch)
            Issue.record("the watch did not stop the orbit")
        } catch let found as PeriodWatch.Found {
            #expect(found.period == period)
        }
        // A minimum size far above the minibrot's: no stop.
        let strict = PeriodWatch(radius: radius, maxPeriod: 10_000, minimumLog2Size: 10)
        #expect(strict.scan(orbit) == nil)
        // Where it dominates but Newton's method is not to run (period past maxNewtonPeriod):
        // the orbit ends there instead, its first period + 1 values, the whole orbit's own.
        let dominantEnds = PeriodWatch(
            radius: radius, maxPeriod: 10_000, minimumLog2Size: radius.log2Magnitude - 4,
            maxNewtonPeriod: period - 1, ending: .whereDominant)
        #expect(dominantEnds.scan(orbit)?.period == period && dominantEnds.scan(orbit)?.ends == true)
        // Not dominant: the orbit runs on.
        #expect(
            PeriodWatch(radius: radius, maxPeriod: 10_000, minimumLog2Size: 10, ending: .whereDominant).scan(orbit)
                == nil)
        let ended = try ReferenceOrbit.compute(
            point: center, power: 2, juliaC: nil, maxIterations: 1000, precision: precision, watch: dominantEnds)
        #expect(ended.count == period + 1 && !ended.escaped)
        #expect(ended.values(as: Double.self) == Array(orbit.values(as: Double.self).prefix(period + 1)))
    }

    @Test("--reference nucleus without a nucleus in reach falls back to the center, and the report says why")
    func nucleusFallback() throws {
        // 20 iterations: no period of the Seahorse view's features is that short.
        let location = Location(
            centerRe: Self.seahorse.re, centerIm: Self.seahorse.im, radius: "1e-20", maxIterations: 20)
        var settings = RenderSettings(width: 8, height: 6, path: .perturbation)
        let atCenter = try Renderer.render(location: location, settings: settings)
        settings.perturbation.placement = .nucleus
        let fallback = try Renderer.render(location: location, settings: settings)
        let report = try #require(fallback.report.perturbation)
        #expect(report.referencePeriod == nil)
        #expect(report.referenceNote == "no minibrot nucleus in view: the center is the reference")
        #expect(fallback.field == atCenter.field)
        #expect(atCenter.report.perturbation?.referenceNote == nil)
    }

}
