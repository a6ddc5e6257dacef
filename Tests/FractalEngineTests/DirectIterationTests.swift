import ArbitraryPrecision
import FractalEngine
import FractalNumerics
import Testing

/// Renders `location` and compares every pixel of a small image with direct MPFR iteration
/// at the oracle's precision (bits = -log2(s) + 64). Returns the pixels that differ.
func mismatchesAgainstMPFR(
    _ location: Location, width: Int, height: Int, path: ArithmeticPath? = nil,
    stride: Int = 1, smoothTolerance: Double = 1e-6
) throws -> [(Int, Int, PixelResult, PixelResult)] {
    let result = try Renderer.render(
        location: location, settings: RenderSettings(width: width, height: height, path: path))
    let viewport = try Viewport(location: location, width: width, height: height)
    let mpfr = MPFREscape(precision: viewport.precision)
    var bad: [(Int, Int, PixelResult, PixelResult)] = []
    for y in Swift.stride(from: 0, to: height, by: stride) {
        for x in Swift.stride(from: 0, to: width, by: stride) {
            let want = mpfr.iterate(
                pixelX: x, pixelY: y, viewport: viewport, family: location.family, maxIterations: location.maxIterations
            )
            let got = result.field[x, y]
            let smoothOK = want.smooth.isNaN ? got.smooth.isNaN : Swift.abs(want.smooth - got.smooth) <= smoothTolerance
            if want.n2 != got.n2 || want.nBig != got.nBig || !smoothOK { bad.append((x, y, want, got)) }
        }
    }
    return bad
}

@Suite("Direct iteration against MPFR")
struct DirectIterationTests {
    @Test("Mandelbrot in double-double: every pixel of a Seahorse Valley zoom (radius 1e-9)")
    func mandelbrotDoubleDouble() throws {
        let loc = Location(
            centerRe: "-0.7436438870371587", centerIm: "0.1318259042053119", radius: "1e-9", maxIterations: 3000)
        let bad = try mismatchesAgainstMPFR(loc, width: 24, height: 16)
        #expect(bad.isEmpty, "\(bad.prefix(3))")
    }

    @Test("Mandelbrot in Double: the whole set, every pixel")
    func mandelbrotDouble() throws {
        let loc = Location(centerRe: "-0.5", centerIm: "0", radius: "1.5", maxIterations: 500)
        let result = try Renderer.render(location: loc, settings: RenderSettings(width: 48, height: 32))
        #expect(result.report.path == .double)
        let bad = try mismatchesAgainstMPFR(loc, width: 48, height: 32)
        #expect(bad.isEmpty, "\(bad.prefix(3))")
    }

    @Test("Multibrot z^p + c in double-double for several powers", arguments: [2, 3, 4, 7, 16])
    func multibrot(power: Int) throws {
        // Centers near the boundary of each set (the positive real tip, c = (p-1) p^(-p/(p-1))
        // for the cusp of the main component, moved slightly inward).
        let loc = Location(
            family: .multibrot(power: power), centerRe: "-0.2", centerIm: "0.75", radius: "1e-6", maxIterations: 2000)
        let bad = try mismatchesAgainstMPFR(loc, width: 16, height: 12)
        #expect(bad.isEmpty, "\(bad.prefix(3))")
    }

    /// Escape counts must match in both types. The smooth value must match to 1e-6 in
    /// double-double; in Double, orbits that pass near the Julia set amplify rounding enough to
    /// move smooth by up to ~0.6 at 600+ iterations while the counts stay exact (measured),
    /// so there only the counts are compared (smooth lies in (nBig, nBig + 1) by definition).
    @Test("Multibrot in Double: whole sets, every pixel", arguments: [3, 4, 8])
    func multibrotDouble(power: Int) throws {
        let loc = Location(
            family: .multibrot(power: power), centerRe: "0", centerIm: "0", radius: "1.4", maxIterations: 300)
        let bad = try mismatchesAgainstMPFR(loc, width: 32, height: 24, path: .double)
        #expect(bad.isEmpty, "\(bad.prefix(3))")
    }

    @Test("Julia in Double and double-double", arguments: [ArithmeticPath.double, .doubleDouble])
    func julia(path: ArithmeticPath) throws {
        let loc = Location(
            family: .julia(re: "-0.8", im: "0.156"), centerRe: "0", centerIm: "0", radius: "1.2", maxIterations: 1000)
        // Double alone is not exact here; with the rounding check it is.
        let bad = try mismatchesAgainstMPFR(loc, width: 32, height: 24, path: path, smoothTolerance: 1e-6)
        #expect(bad.isEmpty, "\(bad.prefix(3))")
        let deep = Location(
            family: .julia(re: "-0.8", im: "0.156"), centerRe: "0.9498194280882129", centerIm: "0.3521921920428926",
            radius: "1e-12", maxIterations: 5000)
        let badDeep = try mismatchesAgainstMPFR(deep, width: 16, height: 12, path: .doubleDouble)
        #expect(badDeep.isEmpty, "\(badDeep.prefix(3))")
    }

    @Test("a Julia parameter with |c| > 2 takes the scalar path and still matches")
    func juliaOutside() throws {
        let loc = Location(
            family: .julia(re: "2.5", im: "0.1"), centerRe: "0", centerIm: "0", radius: "2", maxIterations: 100)
        let bad = try mismatchesAgainstMPFR(loc, width: 16, height: 12, path: .double)
        #expect(bad.isEmpty, "\(bad.prefix(3))")
    }

    @Test(
        "the vectorised kernels equal the scalar kernel bit for bit", arguments: [ArithmeticPath.double, .doubleDouble])
    func lanesEqualScalar(path: ArithmeticPath) throws {
        // Multibrot p = 2 runs the generic scalar kernel with the same z^2 + c arithmetic.
        var settings = RenderSettings(width: 97, height: 61, path: path)
        settings.checkRounding = false  // the lanes alone
        for (re, im, r) in [
            ("-0.5", "0", "1.5"), ("-0.7463", "0.1102", "0.005"), ("-1.25", "0", "0.3"),
            ("-0.7436438870371587", "0.1318259042053119", "3e-11"),
        ] {
            let vector = try Renderer.render(
                location: Location(centerRe: re, centerIm: im, radius: r, maxIterations: 700), settings: settings)
            let scalar = try Renderer.render(
                location: Location(
                    family: .multibrot(power: 2), centerRe: re, centerIm: im, radius: r, maxIterations: 700),
                settings: settings)
            #expect(vector.field == scalar.field, "\(re), \(im), radius \(r)")
        }
    }
}
