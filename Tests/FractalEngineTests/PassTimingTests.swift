import FractalEngine
import Testing

/// The report's pass timings (what `fathom-bench` prints per pass): each pass is listed in the
/// order it ran, and its loop steps are the pixels' own counts.
@Suite("Pass timings")
struct PassTimingTests {
    /// Fractalshades' case b (the Dinkydau flake at 1e-50), 400x200: big enough for the first
    /// pass's probe (80,000 pixels), with pixels at risk after it.
    static let flake = Location(
        centerRe:
            "-1.99996619445037030418434688506350579675531241540724851511761922944801584242342684381376129778868913812287046406560949864353810575744772166485672496092803920095332",
        centerIm:
            "-0.00000000000000000000000000000000030013824367909383240724973039775924987346831190773335270174257280120474975614823581185647299288414075519224186504978181625478529",
        radius: "5E-51", maxIterations: 1_000_000)

    @Test("the first passes' loop steps add up to the report's; every pass is labelled, timed and stepped")
    func stepsAddUp() throws {
        let result = try Renderer.render(location: Self.flake, settings: RenderSettings(width: 400, height: 200))
        let report = try #require(result.report.perturbation)
        let labels = report.passes.map(\.label)
        #expect(labels.first == "probe" && labels.contains("first"), "\(labels)")
        let first = report.passes.filter { $0.label == "first" || $0.label == "glitch" }
        #expect(first.reduce(0) { $0 + $1.loopSteps } == report.loopSteps)
        #expect(first.first?.pixels == 400 * 200)
        let atRisk = report.passes.filter { $0.label.hasPrefix("at risk") }
        #expect(!atRisk.isEmpty)
        for pass in report.passes {
            #expect(pass.loopSteps > 0 && pass.seconds > 0 && pass.laneWidth == 1 && pass.form == "cpu", "\(pass)")
            #expect(pass.nanosecondsPerStepPerCore > 0 && pass.nanosecondsPerStepPerCore.isFinite)
        }
        // A pass for pixels at risk counts its own steps: at least one a pixel.
        for pass in atRisk { #expect(pass.loopSteps >= pass.pixels, "\(pass)") }
    }
}
