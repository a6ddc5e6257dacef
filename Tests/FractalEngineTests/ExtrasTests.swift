import ArbitraryPrecision
import FractalEngine
import FractalNumerics
import Testing

@Suite("Distance estimate, slope and orbit traps")
struct ExtrasTests {
    static func render(
        _ loc: Location, _ w: Int, _ h: Int, path: ArithmeticPath?, extras: ExtrasRequest, only: [Int]? = nil
    ) throws -> IterationField {
        var settings = RenderSettings(width: w, height: h, path: path)
        settings.extras = extras
        settings.onlyPixels = only
        return try Renderer.render(location: loc, settings: settings).field
    }

    /// The estimate's limit G(c) / |G'(c)| (G the Green's function of the set's complement,
    /// G = lim ln|z_n| / 2^n, |G'| = lim |dz_n/dc| / (2^n |z_n|)), by iterating to |z| > 1e150:
    /// convergence is quadratic, so this is the exact value to Double's rounding.
    static func greenRatio(_ c: Double) -> (ratio: Double, g: Double) {
        var z = 0.0, dz = 0.0, n = 0
        while Swift.abs(z) <= 1e150 {
            dz = 2 * z * dz + 1
            z = z * z + c
            n += 1
        }
        let g = Math.log(Swift.abs(z)) / Math.pow(2, Double(n))
        return (Swift.abs(z) * Math.log(Swift.abs(z)) / Swift.abs(dz), g)
    }

    @Test("the distance estimate is G / |G'| to Float's rounding, and Koebe's bounds hold around the true distance")
    func distance() throws {
        // One pixel views centred on points whose distance to the set is known: -2.5 is 0.5
        // from the tip -2; 0.5 is nearest the main cardioid c(t) = e^(it)/2 - e^(2it)/4
        // (measured here over t), not the cusp at 0.25.
        var cardioid = Double.infinity
        for k in 0...100_000 {
            let t = Double.pi * Double(k) / 100_000
            let x = Math.cos(t) / 2 - Math.cos(2 * t) / 4, y = Math.sin(t) / 2 - Math.sin(2 * t) / 4
            cardioid = Swift.min(cardioid, ((x - 0.5) * (x - 0.5) + y * y).squareRoot())
        }
        #expect(cardioid > 0.17 && cardioid < 0.18)
        for (c, truth) in [(-2.5, 0.5), (0.5, cardioid)] {
            let loc = Location(centerRe: "\(c)", centerIm: "0", radius: "1e-3", maxIterations: 1000)
            let spacing = 2e-3
            let (ratio, g) = Self.greenRatio(c)
            // Koebe's 1/4 theorem for the Riemann map of the complement: with G and |G'| at c,
            // sinh(G) / (2 e^G |G'|) <= distance <= 2 sinh(G) / |G'|.
            let gPrime = g / ratio, sinhG = (Math.exp(g) - Math.exp(-g)) / 2
            #expect(sinhG / (2 * Math.exp(g) * gPrime) <= truth && truth <= 2 * sinhG / gPrime, "\(c)")
            for path in [ArithmeticPath.double, .perturbation] {
                let field = try Self.render(loc, 1, 1, path: path, extras: ExtrasRequest(derivative: true))
                let d = Double(field.extras!.distance[0]) * spacing
                // Stored as a Float in pixel spacings: 2^-24 relative, and the bailout's
                // truncation is far below that (|z| > 65536 at escape).
                #expect(Swift.abs(d / ratio - 1) < 2e-7, "\(c) on \(path): \(d), G/|G'| = \(ratio)")
            }
        }
    }

    @Test("perturbation with BLA tracks the same derivative as direct iteration")
    func perturbationMatchesDirect() throws {
        // 1e-20: double-double iterates it directly, and BLA steps carry most perturbation
        // iterations. The estimate is ill-conditioned where orbits pass near 0 (Double's
        // rounding of z there moves it by 1e-4 relative), so the two agree to 1e-2: a BLA
        // step that dropped B (dc's share) or A would be off by far more.
        let loc = Location(
            centerRe: PerturbationTests.flakeRe, centerIm: PerturbationTests.flakeIm, radius: "1e-20",
            maxIterations: 5000)
        let direct = try Self.render(loc, 32, 18, path: .doubleDouble, extras: ExtrasRequest(derivative: true))
        var settings = RenderSettings(width: 32, height: 18, path: .perturbation)
        settings.extras = ExtrasRequest(derivative: true)
        let result = try Renderer.render(location: loc, settings: settings)
        let perturbed = result.field
        #expect(
            (result.report.perturbation?.approximationSteps ?? 0) > (result.report.perturbation?.loopSteps ?? 0) / 10)
        var compared = 0
        for i in 0..<direct.pixelCount where direct.nBig[i] != 0 && direct.nBig[i] == perturbed.nBig[i] {
            let a = Double(direct.extras!.distance[i]), b = Double(perturbed.extras!.distance[i])
            #expect(Swift.abs(a / b - 1) < 1e-2, "pixel \(i): \(a) vs \(b)")
            let dot = Double(
                direct.extras!.slopeRe[i] * perturbed.extras!.slopeRe[i] + direct.extras!.slopeIm[i]
                    * perturbed.extras!.slopeIm[i])
            #expect(dot > 0.999, "pixel \(i)")
            compared += 1
        }
        #expect(compared > 500)
        // Past Double's range, with FloatExp deltas: finite positive estimates.
        let deep = try Self.render(
            Location(
                centerRe: PerturbationTests.flakeRe, centerIm: PerturbationTests.flakeIm, radius: "1e-140",
                maxIterations: 20000), 16, 9, path: .perturbation, extras: ExtrasRequest(derivative: true))
        let distances = deep.extras!.distance.filter(\.isFinite)
        #expect(distances.count == 144 && distances.allSatisfy { $0 > 0 && $0 < 1e4 })
    }

    @Test("an orbit trap records the orbit's closest approach, on the direct and the perturbation path")
    func trap() throws {
        let loc = Location(centerRe: "-0.75", centerIm: "0.1", radius: "0.01", maxIterations: 300)
        let trap = OrbitTrap.cross(re: 0.1, im: -0.2)
        let viewport = try Viewport(location: loc, width: 8, height: 6)
        for path in [ArithmeticPath.double, .perturbation] {
            let field = try Self.render(loc, 8, 6, path: path, extras: ExtrasRequest(trap: trap))
            for i in [0, 17, 47] {
                let c = viewport.point(x: i % 8, y: i / 8)
                let cx = c.re.doubleValue, cy = c.im.doubleValue
                var x = 0.0, y = 0.0, nearest = Double.infinity
                for _ in 0..<300 {
                    (x, y) = (x * x - y * y + cx, 2 * x * y + cy)
                    nearest = Swift.min(nearest, Swift.min(Swift.abs(x - 0.1), Swift.abs(y + 0.2)))
                    if x * x + y * y > Escape.radiusSquaredBig { break }
                }
                #expect(
                    Swift.abs(Double(field.extras!.trap[i]) - nearest) <= 1e-6 * Swift.max(1, nearest),
                    "\(path) pixel \(i)")
            }
        }
    }
}
