import ArbitraryPrecision
import FractalEngine
import FractalNumerics
import Testing

@Suite("Interior detection")
struct InteriorTests {
    /// A minibrot of the Seahorse valley found at 1e-25 (as `MinibrotFinderTests`), and its
    /// nucleus orbit for one period with its LA table and interior test.
    static func minibrot() throws -> (MinibrotFinder.Minibrot, InteriorTest<FloatExp>) {
        let seahorse = MinibrotFinderTests.seahorse
        let center = try BigComplex(parsingRe: seahorse.re, im: seahorse.im, precision: Precision(bits: 128))
        let levels = try #require(
            MinibrotFinder.descend(from: center, radius: FloatExp(seahorse.radius), to: FloatExp(1e-25)))
        let m = levels.last!.minibrot
        let orbit = try ReferenceOrbit.compute(
            point: m.nucleus, power: 2, juliaC: nil, maxIterations: m.period, precision: m.nucleus.precision)
        let values = orbit.values(as: FloatExp.self)
        let table = LATable(orbit: values, epsilon: 0x1p-40, spanning: true)
        return (m, try #require(InteriorTest(table: table, orbit: values)))
    }

    @Test("the proof takes the minibrot's cardioid and its bulbs, never a point just outside them")
    func cardioidEdge() throws {
        let (_, test) = try Self.minibrot()
        // Inside the cardioid, down to 2% from the cusp (|lambda| = 0.98) and near the period-2
        // root; inside the period-2 bulb; the centers of the period-3 bulb, the period-4 bulb
        // and the period-3 minibrot on the real axis (cycles of the ball proof).
        let inside = [
            Complex(0.0, 0), Complex(0.2499, 0), Complex(-0.745, 0), Complex(0.1, 0.5), Complex(-0.5, 0.3),
            Complex(-1.0, 0), Complex(-1.2, 0.05), Complex(-0.7501, 0), Complex(-0.1226, 0.7449),
            Complex(-1.3107, 0), Complex(-1.7549, 0),
        ]
        for c in inside { #expect(test.proves(dc: test.delta(renormalized: c)), "c' = \(c)") }
        // Outside by 1e-4 to 1e-9 at the cusp and the period-2 root, where orbits creep past the
        // ghost of a neutral cycle and a derivative test would call them interior (Design.md
        // 13.3); just outside the period-2 bulb; at the period-3 minibrot's cusp; and outside
        // the set.
        let outside = [
            Complex(0.2501, 0), Complex(0.250001, 0), Complex(0.25 + 1e-9, 0), Complex(-0.75, 0.001),
            Complex(-0.75, 1e-7), Complex(-1 + 0.25001 * 0.5403023058681398, 0.25001 * 0.8414709848078965),
            Complex(-1.75 + 1e-7, 0), Complex(0.5, 0.5), Complex(-2.1, 0),
        ]
        for c in outside { #expect(!test.proves(dc: test.delta(renormalized: c)), "c' = \(c)") }
        // A grid over the set: no point whose model orbit of 0 escapes is ever proven; most
        // points with an attracting cycle of period 3 to 16 (multiplier below 0.9) are.
        var escaping = 0, attracting = 0, proven = 0
        for j in 0...60 {
            for i in 0...125 {
                let c = Complex(-2.0 + 0.02 * Double(i), 0.02 * Double(j))
                let p = test.proves(dc: test.delta(renormalized: c))
                switch Self.modelOrbit(c) {
                case .escapes:
                    escaping += 1
                    #expect(!p, "c' = \(c) escapes but was proven")
                case .cycle(let k, let multiplier) where k >= 3 && multiplier < 0.9:
                    attracting += 1
                    if p { proven += 1 }
                default: break
                }
            }
        }
        #expect(escaping > 3000 && attracting > 50)
        #expect(proven * 10 >= attracting * 9, "\(proven) of \(attracting) period-3+ points proven")
    }

    enum ModelOrbit {
        case escapes
        case cycle(Int, Double)
        case unknown
    }

    /// The orbit of 0 under v^2 + c in Double: escaping within 20,000 steps, or settled on a
    /// cycle of period up to 16 (its period and |multiplier|).
    static func modelOrbit(_ c: Complex<Double>) -> ModelOrbit {
        var x = 0.0, y = 0.0
        for _ in 0..<20_000 {
            (x, y) = (x * x - y * y + c.re, 2 * x * y + c.im)
            if x * x + y * y > 4 { return .escapes }
        }
        let (sx, sy) = (x, y)
        var multiplier = 1.0
        for k in 1...16 {
            multiplier *= 2 * (x * x + y * y).squareRoot()
            (x, y) = (x * x - y * y + c.re, 2 * x * y + c.im)
            if ((x - sx) * (x - sx) + (y - sy) * (y - sy)).squareRoot() < 1e-9 { return .cycle(k, multiplier) }
        }
        return .unknown
    }

    @Test("a view of the minibrot with its nucleus as the reference: proven pixels never escape in MPFR")
    func againstMPFR() throws {
        let (m, _) = try Self.minibrot()
        // Centered on the minibrot, at about its own size: most pixels in its cardioid.
        let whole = MinibrotFinder.location(of: m, iterations: 2000)
        let location = Location(
            centerRe: whole.centerRe, centerIm: whole.centerIm,
            radius: BigFloat(m.size.scaled(by: 1.5), precision: Precision(bits: 64)).decimalString(
                significantDigits: 6),
            maxIterations: whole.maxIterations)
        var settings = RenderSettings(width: 20, height: 14, path: .perturbation)
        settings.perturbation.placement = .nucleus
        let result = try Renderer.render(location: location, settings: settings)
        let report = try #require(result.report.perturbation)
        #expect(report.referencePeriod == m.period)
        #expect(report.interiorPixels > 25, "\(report.interiorPixels) proven")
        let viewport = try Viewport(location: location, width: 20, height: 14)
        let mpfr = MPFREscape(precision: viewport.precision)
        var bounded = 0
        for y in 0..<14 {
            for x in 0..<20 {
                let want = mpfr.iterate(
                    pixelX: x, pixelY: y, viewport: viewport, family: .mandelbrot,
                    maxIterations: location.maxIterations)
                let got = result.field[x, y]
                #expect(got.n2 == want.n2 && got.nBig == want.nBig, "pixel \(x), \(y)")
                if want.nBig == 0 { bounded += 1 }
            }
        }
        #expect(bounded >= report.interiorPixels)
    }
}
