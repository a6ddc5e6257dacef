import ArbitraryPrecision
import FractalEngine
import FractalNumerics
import Testing

@Suite("Newton fractals")
struct NewtonTests {
    @Test("the built-in polynomials parse and their roots are roots", arguments: NewtonPolynomial.builtIn)
    func roots(text: String) throws {
        let poly = try #require(NewtonPolynomial(text))
        #expect(poly.roots.count == poly.degree)
        for r in poly.roots {
            let (p, _) = NewtonPolynomial.evaluate(poly.coefficients, at: r)
            #expect(p.magnitude < 1e-12, "p(\(r)) = \(p)")
        }
    }

    @Test("z^3 - 1 has the cube roots of unity, ordered by argument")
    func cubeRoots() throws {
        let roots = NewtonPolynomial("z^3-1")!.roots
        #expect(Swift.abs(roots[0].re + 0.5) < 1e-15 && Swift.abs(roots[0].im + 0.75.squareRoot()) < 1e-15)
        #expect(roots[1].re == 1 && roots[1].im == 0)
        #expect(Swift.abs(roots[2].re + 0.5) < 1e-15 && Swift.abs(roots[2].im - 0.75.squareRoot()) < 1e-15)
    }

    @Test("malformed polynomials are rejected", arguments: ["", "z", "z^^3", "3", "z^3-", "2x+1", "z^40", "z^3 1"])
    func malformed(text: String) {
        #expect(NewtonPolynomial(text) == nil)
    }

    /// Newton's method in MPFR (BigComplex) with the same convergence test.
    func mpfrNewton(_ poly: NewtonPolynomial, _ z0: BigComplex, maxIterations: Int) -> (n: Int, root: Int) {
        let p = z0.precision
        let coefficients = poly.coefficients.map { BigFloat($0, precision: p) }
        var z = z0
        for n in 1...maxIterations {
            var value = BigComplex(coefficients.last!, BigFloat(precision: p))
            var derivative = BigComplex(precision: p)
            for k in stride(from: coefficients.count - 2, through: 0, by: -1) {
                derivative = derivative * z + value
                value = value * z + BigComplex(coefficients[k], BigFloat(precision: p))
            }
            if derivative.lengthSquared.isZero { return (0, 0) }
            z = z - value / derivative
            for (k, r) in poly.roots.enumerated() {
                let d = (z - BigComplex(r, precision: p)).doubleValue
                if d.re * d.re + d.im * d.im < 1e-12 { return (n, k + 1) }
            }
        }
        return (0, 0)
    }

    @Test("root and iteration count match MPFR Newton iteration", arguments: NewtonPolynomial.builtIn)
    func againstMPFR(text: String) throws {
        let poly = NewtonPolynomial(text)!
        for (path, radius) in [(ArithmeticPath.double, "1.5"), (.doubleDouble, "1e-20")] {
            let loc = Location(
                family: .newton(poly), centerRe: radius == "1.5" ? "0" : "0.2937", centerIm: "0.1", radius: radius,
                maxIterations: 200)
            let w = 20, h = 14
            let result = try Renderer.render(location: loc, settings: RenderSettings(width: w, height: h, path: path))
            let viewport = try Viewport(location: loc, width: w, height: h)
            var mismatches = 0
            for y in 0..<h {
                for x in 0..<w {
                    let want = mpfrNewton(poly, viewport.exactPoint(x: x, y: y), maxIterations: 200)
                    let got = result.field[x, y]
                    if Int(got.nBig) != want.n || Int(got.root) != want.root { mismatches += 1 }
                }
            }
            #expect(mismatches == 0, "\(text) \(path)")
        }
    }
}
