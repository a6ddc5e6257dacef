import ArbitraryPrecision
import FractalEngine
import FractalNumerics
import Testing

@Suite("Orbits streamed to the kernel")
struct StreamedOrbitTests {
    static let view = Location(
        centerRe: PerturbationTests.e55Re, centerIm: PerturbationTests.e55Im, radius: "1e-30", maxIterations: 5000)

    static func render(
        _ delta: DeltaType, _ mode: GlitchMode, _ residency: OrbitResidency, stage: Int = 0
    ) throws -> RenderResult {
        var settings = RenderSettings(
            width: 24, height: 16, path: .perturbation,
            perturbation: PerturbationSettings(glitchMode: mode, placement: .center, deltaType: delta))
        settings.perturbation.orbitResidency = residency
        settings.perturbation.streamedStage = stage
        return try Renderer.render(location: view, settings: settings)
    }

    @Test(
        "with the whole LA table a streamed pass is the decoded pass, field and steps bit for bit",
        arguments: [
            (DeltaType.double, GlitchMode.rebase), (.floatExp, .rebase), (.doubleDouble, .rebase), (.floatExp, .detect),
        ])
    func sameField(delta: DeltaType, mode: GlitchMode) throws {
        let decoded = try Self.render(delta, mode, .decoded)
        let streamed = try Self.render(delta, mode, .streamed)
        let field = decoded.field
        var differ = 0
        for y in 0..<field.height {
            for x in 0..<field.width {
                let a = field[x, y], b = streamed.field[x, y]
                if a.n2 != b.n2 || a.nBig != b.nBig || a.smooth.bitPattern != b.smooth.bitPattern { differ += 1 }
            }
        }
        #expect(differ == 0)
        #expect(decoded.report.perturbation!.streamedPasses == 0)
        #expect(streamed.report.perturbation!.streamedPasses >= 1)
        // The orbit runs past many keys (one each 128 steps), and LA and plain steps both ran.
        #expect(decoded.report.perturbation!.referenceLength > 1000)
        #expect(decoded.report.perturbation!.approximationSteps > 0)
        #expect(decoded.report.perturbation!.loopSteps > decoded.report.perturbation!.approximationSteps)
        #expect(decoded.report.perturbation!.loopSteps == streamed.report.perturbation!.loopSteps)
        #expect(decoded.report.perturbation!.approximationSteps == streamed.report.perturbation!.approximationSteps)
    }

    @Test("at the period-3 nucleus to 1,200 bits the orbit's tiny steps (below 2^-1000) stream as they decode")
    func tinySteps() throws {
        let p = Precision(bits: 1200)
        let near = try BigComplex(parsingRe: "-1.76", im: "0.004", precision: p)
        let m = try #require(MinibrotFinder.find(near: near, radius: FloatExp(0.02)))
        #expect(m.period == 3)
        let view = Location(
            centerRe: m.nucleus.re.decimalString(significantDigits: 370),
            centerIm: m.nucleus.im.decimalString(significantDigits: 370), radius: "1e-320", maxIterations: 600)
        var settings = RenderSettings(
            width: 8, height: 6, path: .perturbation,
            perturbation: PerturbationSettings(glitchMode: .rebase, placement: .center, deltaType: .floatExp))
        settings.perturbation.streamedStage = 0
        settings.perturbation.orbitResidency = .decoded
        let decoded = try Renderer.render(location: view, settings: settings)
        settings.perturbation.orbitResidency = .streamed
        let streamed = try Renderer.render(location: view, settings: settings)
        // The reference these renders take: the center's orbit, with steps in the tiny table.
        let bits = decoded.report.perturbation!.precisionBits
        let center = try BigComplex(parsingRe: view.centerRe, im: view.centerIm, precision: Precision(bits: bits))
        let orbit = try ReferenceOrbit.compute(
            point: center, power: 2, juliaC: nil, maxIterations: 600, precision: Precision(bits: bits))
        #expect(orbit.tiny.count > 10)
        var differ = 0
        for y in 0..<6 {
            for x in 0..<8 {
                let a = decoded.field[x, y], b = streamed.field[x, y]
                if a.n2 != b.n2 || a.nBig != b.nBig || a.smooth.bitPattern != b.smooth.bitPattern { differ += 1 }
            }
        }
        #expect(differ == 0)
        #expect(decoded.report.perturbation!.streamedPasses == 0)
        #expect(streamed.report.perturbation!.streamedPasses >= 1)
        #expect(decoded.report.perturbation!.loopSteps == streamed.report.perturbation!.loopSteps)
    }

    @Test("a streamed pass with its lean LA table (stages 2 and up) is exact against MPFR")
    func leanIsExact() throws {
        let (bad, report) = try perturbationMismatches(
            Self.view, width: 24, height: 16, delta: .floatExp, smoothTolerance: nil
        ) { $0.orbitResidency = .streamed }
        #expect(bad.isEmpty, "\(bad.prefix(5))")
        #expect(report.perturbation!.streamedPasses >= 1)
        // The lean table left more to plain steps than the whole one.
        let whole = try Self.render(.floatExp, .rebase, .decoded)
        #expect(report.perturbation!.loopSteps > whole.report.perturbation!.loopSteps)
    }

    @Test("automatic residency streams long orbits against few pixels only")
    func automatic() {
        let a = OrbitResidency.automatic
        #expect(a.streams(steps: 5_449_261, pixels: 256))
        #expect(!a.streams(steps: 5_449_261, pixels: 640_000))
        #expect(!a.streams(steps: 5_449_261, pixels: 41_014))
        #expect(a.streams(steps: 5_449_261, pixels: 14_856))
        #expect(!a.streams(steps: 100_000, pixels: 1))
        #expect(OrbitResidency.streamed.streams(steps: 10, pixels: 1_000_000))
        #expect(!OrbitResidency.decoded.streams(steps: 1 << 30, pixels: 1))
    }
}

@Suite("Memory bound of a render's reference")
struct ReferenceMemoryTests {
    @Test("a render that streams every pass is bounded at 64 bytes a step, one that decodes at 320")
    func bound() throws {
        let deep = Location(
            centerRe: PerturbationTests.e55Re, centerIm: PerturbationTests.e55Im, radius: "1e-30",
            maxIterations: 100_000_000)
        var settings = RenderSettings(width: 16, height: 16, path: .perturbation, perturbation: PerturbationSettings())
        let small = try Renderer.plan(location: deep, settings: settings)
        #expect(small.bytesPerStep == RenderPlan.bytesPerStreamedStep)
        #expect(small.referenceBytes == 64 * 100_000_001)
        settings.width = 1920
        settings.height = 1080
        #expect(try Renderer.plan(location: deep, settings: settings).bytesPerStep == RenderPlan.bytesPerReferenceStep)
        settings.width = 16
        settings.height = 16
        settings.perturbation.orbitResidency = .decoded
        #expect(try Renderer.plan(location: deep, settings: settings).bytesPerStep == RenderPlan.bytesPerReferenceStep)
        settings.perturbation.orbitResidency = .automatic
        // On any backend: a GPU's passes stream the orbit too (the kernels' FKStream).
        #expect(try Renderer.plan(location: deep, settings: settings).bytesPerStep == RenderPlan.bytesPerStreamedStep)
        settings.perturbation.approximation = .bla
        #expect(try Renderer.plan(location: deep, settings: settings).bytesPerStep == RenderPlan.bytesPerReferenceStep)
        settings.perturbation.approximation = .linear
        let julia = Location(
            family: .julia(re: "-0.8", im: "0.156"), centerRe: "0", centerIm: "0", radius: "1e-30",
            maxIterations: 100_000_000)
        #expect(try Renderer.plan(location: julia, settings: settings).bytesPerStep == RenderPlan.bytesPerReferenceStep)
        // The most steps in 8 GiB: five times as many streamed.
        #expect(RenderPlan.maximumReferenceSteps(memory: 8 << 30, bytesPerStep: 64) == (8 << 30) / 64)
    }
}
