import Fathom
import Foundation
import Testing

/// Detect mode on the published glitch views (shared/locations glitch_test_1..5): the first
/// pass must find glitched pixels, extra references must be taken, none may be left, and the
/// pixels the extra references changed must be direct MPFR iteration's.
@Suite("Glitch detection on the published glitch views")
struct GlitchDetectionTests {
    /// Sizes at which each view glitches (glitch_test_2 only from 96 x 54 on).
    static let views: [(name: String, width: Int, height: Int)] = [
        ("glitch_test_1", 32, 18), ("glitch_test_2", 96, 54), ("glitch_test_3", 64, 36),
        ("glitch_test_4", 64, 36), ("glitch_test_5", 64, 36),
    ]

    @Test(
        "detect mode finds glitches, takes references, leaves none, and its corrections are MPFR's",
        arguments: 0..<views.count)
    func detect(_ k: Int) throws {
        let (name, w, h) = Self.views[k]
        let location = try #require(Presets.named(name)).location
        var settings = RenderSettings(width: w, height: h, path: .perturbation)
        settings.perturbation.glitchMode = .detect
        let corrected = try Renderer.render(location: location, settings: settings)
        let report = try #require(corrected.report.perturbation)
        #expect(report.glitchedPixels > 0, "\(name): no pixel glitched")
        #expect(report.references.count > 1, "\(name): no extra reference")
        #expect(report.uncorrectedPixels == 0, "\(name)")
        // The same first pass without extra references: every glitched pixel stays as it was.
        settings.perturbation.referenceBudget = 0
        let uncorrected = try Renderer.render(location: location, settings: settings)
        let first = try #require(uncorrected.report.perturbation)
        #expect(first.references.count == 1)
        #expect(
            first.glitchedPixels == report.glitchedPixels && first.uncorrectedPixels == report.glitchedPixels, "\(name)"
        )
        // The pixels whose counts the extra references changed.
        let field = corrected.field, before = uncorrected.field
        let changed = (0..<field.pixelCount).filter {
            field.n2[$0] != before.n2[$0] || field.nBig[$0] != before.nBig[$0]
        }
        #expect(!changed.isEmpty, "\(name): the corrections changed no count")
        #expect(changed.count <= report.glitchedPixels)
        // Up to 6 of them, spread over the list, and 2 pixels no glitch touched, against direct
        // MPFR iteration at the oracle's precision (-log2 s + 64 bits).
        let viewport = try Viewport(location: location, width: w, height: h)
        let mpfr = MPFREscape(precision: viewport.precision)
        let sample = (0..<Swift.min(6, changed.count)).map { changed[$0 * changed.count / Swift.min(6, changed.count)] }
        let untouched = (0..<field.pixelCount).filter { !changed.contains($0) && field.nBig[$0] == before.nBig[$0] }
        for i in sample + [untouched.first!, untouched.last!] {
            let want = mpfr.iterate(
                pixelX: i % w, pixelY: i / w, viewport: viewport, family: location.family,
                maxIterations: location.maxIterations)
            let got = field[i % w, i / w]
            #expect(
                got.n2 == want.n2 && got.nBig == want.nBig,
                "\(name) pixel (\(i % w), \(i / w)): \(got.n2)/\(got.nBig), MPFR \(want.n2)/\(want.nBig)")
            if !want.smooth.isNaN {
                #expect(Swift.abs(got.smooth - want.smooth) < 1e-6, "\(name) pixel (\(i % w), \(i / w)) smooth")
            }
        }
    }
}

/// The same bytes (n2, nBig and smooth's bit patterns: `IterationField ==`) whatever the
/// thread count and the order in which the workers take the tiles, on every perturbation
/// phase: BLA with Double and FloatExp deltas, detect mode's extra references, and the
/// passes for pixels at risk (BLA at 2^-53, 106-bit deltas, MPFR).
@Suite("Determinism of perturbation renders")
struct DeterminismTests {
    static let schedules: [(threads: Int, order: TileOrder)] = [
        (2, .descending), (3, .shuffled(seed: 20_241_129)), (8, .shuffled(seed: 7)),
    ]

    /// Renders on 1 thread in tile order, then on each schedule; returns the first render.
    static func expectSameField(
        _ name: String, width: Int, height: Int, mode: GlitchMode = .rebase,
        backend: ComputeBackend = .cpu, estimate: EstimateMethod = .variance
    ) throws -> RenderResult {
        try expectSameField(
            location: try #require(Presets.named(name)).location, name: name, width: width, height: height,
            mode: mode, backend: backend, estimate: estimate)
    }

    static func expectSameField(
        location: Location, name: String, width: Int, height: Int, mode: GlitchMode = .rebase,
        backend: ComputeBackend = .cpu, estimate: EstimateMethod = .variance
    ) throws -> RenderResult {
        var settings = RenderSettings(width: width, height: height, threads: 1, path: .perturbation)
        settings.perturbation.glitchMode = mode
        settings.perturbation.estimate = estimate
        settings.backend = backend
        let base = try Renderer.render(location: location, settings: settings)
        for (threads, order) in schedules {
            settings.threads = threads
            settings.tileOrder = order
            let other = try Renderer.render(location: location, settings: settings)
            #expect(
                other.field == base.field,
                "\(name): \(threads) threads, \(order): \(zip(other.field.smooth, base.field.smooth).filter { $0.bitPattern != $1.bitPattern }.count) smooth values differ"
            )
            #expect(other.report.perturbation?.references.count == base.report.perturbation?.references.count)
        }
        return base
    }

    @Test("Double deltas with BLA and every pass for pixels at risk (glitch_test_2, 64 x 36; the oracle's Julia set)")
    func riskPasses() throws {
        // The product estimate, which here flags the most pixels; the variance's passes are the
        // same code.
        let base = try Self.expectSameField("glitch_test_2", width: 64, height: 36, estimate: .product)
        let p = try #require(base.report.perturbation)
        #expect(p.deltaType == .double && p.approximationSteps > 0)
        #expect(
            p.fineApproximationPixels > 0 && p.doubleDoublePixels > 0 && p.finerOrbitPixels > 0,
            "passes run: \(p.fineApproximationPixels) / \(p.doubleDoublePixels) / \(p.finerOrbitPixels)")
        // The MPFR pass: the 106-bit passes settle every pixel above; this Julia set (in
        // double-double deltas, with no finer orbit for Julia) leaves 17 to MPFR.
        let oracle = try OracleFile.read(path: try fixture("pub_g_julia_e20"))
        let julia = try Self.expectSameField(
            location: try oracle.locationFile.location(), name: "pub_g_julia_e20", width: oracle.width,
            height: oracle.height)
        let q = try #require(julia.report.perturbation)
        #expect(q.deltaType == .doubleDouble && q.reiteratedPixels > 0, "\(q.reiteratedPixels) pixels in MPFR")
    }

    @Test("FloatExp deltas with BLA (e318, 32 x 18)")
    func floatExp() throws {
        let base = try Self.expectSameField("e318", width: 32, height: 18)
        let p = try #require(base.report.perturbation)
        #expect(p.deltaType == .floatExp && p.approximationSteps > 0 && p.doubleDoublePixels > 0)
    }

    @Test("detect mode: the same glitches, references and corrections (glitch_test_4, 64 x 36)")
    func detect() throws {
        let base = try Self.expectSameField("glitch_test_4", width: 64, height: 36, mode: .detect)
        let p = try #require(base.report.perturbation)
        #expect(p.glitchedPixels > 0 && p.references.count > 1 && p.uncorrectedPixels == 0)
    }

    @Test("the emulated GPU backend gives the CPU's bytes on every schedule (glitch_test_4 in detect mode)")
    func emulated() throws {
        let location = try #require(Presets.named("glitch_test_4")).location
        var settings = RenderSettings(width: 64, height: 36, threads: 1, path: .perturbation)
        settings.perturbation.glitchMode = .detect
        let cpu = try Renderer.render(location: location, settings: settings)
        let gpu = try Self.expectSameField("glitch_test_4", width: 64, height: 36, mode: .detect, backend: .emulated)
        #expect(gpu.report.gpuPasses > 0)
        #expect(gpu.field == cpu.field)
    }
}
