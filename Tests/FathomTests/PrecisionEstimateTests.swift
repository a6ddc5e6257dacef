import Fathom
import Foundation
import Testing

/// A pixel's escape data by direct MPFR (`fathom-bench mpfr-pixels`), at index y * width + x.
typealias MPFRPixel = (index: Int, n2: UInt32, nBig: UInt32, smooth: Double)

/// Expects `field` to hold pixel k's counts and its smooth value within 1e-7.
func expectMatches(
    _ field: IterationField, width: Int, _ k: MPFRPixel, sourceLocation: SourceLocation = #_sourceLocation
) {
    let (y, x) = k.index.quotientAndRemainder(dividingBy: width)
    let got = field[x, y]
    #expect(got.n2 == k.n2 && got.nBig == k.nBig, "pixel \(k.index) counts", sourceLocation: sourceLocation)
    #expect(
        Swift.abs(got.smooth - k.smooth) < 1e-7, "pixel \(k.index): \(got.smooth) against \(k.smooth)",
        sourceLocation: sourceLocation)
}

/// The precision estimate against a wrapped nucleus reference (`ErrorVariance`): the pixels
/// the first pass gets wrong in smooth are flagged, and the passes for pixels at risk settle
/// them to direct MPFR's values.
@Suite("Precision estimate against a wrapped reference")
struct PrecisionEstimateTests {
    /// Pixels of fs_deepmini_e433 at 800 x 800 (index, n2, nBig, smooth) by direct MPFR
    /// (`fathom-bench mpfr-pixels fs_deepmini_e433 800x800 ...`, 1,509 bits): each one's first
    /// pass is off in smooth by 1e-6 to 4e-5 (LA at 2^-40, FloatExp deltas).
    static let known: [MPFRPixel] = [
        (595640, 580844, 580848, 580848.2140152812),
        (270223, 679270, 679277, 679277.3693785274),
        (143264, 581435, 581440, 581440.0879405359),
        (180847, 579477, 579481, 579481.1145176338),
        (577109, 579530, 579533, 579533.8019875000),
    ]

    @Test("deepmini pixels the first pass gets wrong are flagged and settled to MPFR's smooth values")
    func wrappedReference() throws {
        let path = repositoryFile("Benchmarks/Locations/fs_d_deepmini_e433.json").path
        let location = try LocationFile.read(path: path).location()
        var settings = RenderSettings(width: 800, height: 800, path: .perturbation)
        settings.perturbation.placement = .nucleus
        settings.onlyPixels = Self.known.map(\.index)
        settings.perturbation.settlesPixelsAtRisk = false
        let first = try Renderer.render(location: location, settings: settings)
        #expect(first.report.perturbation?.referencePeriod == 57853)
        settings.perturbation.settlesPixelsAtRisk = true
        let settled = try Renderer.render(location: location, settings: settings)
        let report = try #require(settled.report.perturbation)
        // Every one of them at risk: the passes took all five.
        #expect(report.fineApproximationPixels == Self.known.count)
        #expect(report.unsettledPixels == 0)
        var wrongFirst = 0
        for k in Self.known {
            let (y, x) = k.index.quotientAndRemainder(dividingBy: 800)
            let before = first.field[x, y]
            #expect(before.n2 == k.n2 && before.nBig == k.nBig, "pixel \(k.index) counts")
            if Swift.abs(before.smooth - k.smooth) > 1e-6 { wrongFirst += 1 }
            expectMatches(settled.field, width: 800, k)
        }
        #expect(wrongFirst == Self.known.count, "the first pass had \(wrongFirst) of them off by 1e-6")
    }
}

/// The MPFR pass within its budget (`PerturbationSettings.mpfrBudgetSeconds`): the cheapest
/// pixels first, the others reported by index and left as the 106-bit pass had them.
@Suite("The MPFR pass's budget")
struct MPFRBudgetTests {
    @Test("a budget of 0 reports every pixel the MPFR pass would take; a budget for one takes the cheapest")
    func budget() throws {
        // The oracle's Julia set (c outside the Mandelbrot set, double-double deltas): 17 of its
        // pixels go on to MPFR.
        let oracle = try OracleFile.read(path: try fixture("pub_g_julia_e20"))
        let location = try oracle.locationFile.location()
        let (w, h) = (oracle.width, oracle.height)
        var settings = RenderSettings(width: w, height: h, path: .perturbation)
        let full = try Renderer.render(location: location, settings: settings)
        let reiterated = try #require(full.report.perturbation).reiteratedPixels
        try #require(reiterated >= 2)
        settings.perturbation.mpfrBudgetSeconds = 0
        let none = try Renderer.render(location: location, settings: settings)
        let report = try #require(none.report.perturbation)
        #expect(report.reiteratedPixels == 0 && report.unsettledPixels == reiterated)
        #expect(report.unsettledList.count == reiterated && report.unsettledList == report.unsettledList.sorted())
        // Elsewhere the same field; the listed pixels are what MPFR changed (or confirmed).
        let listed = Set(report.unsettledList.map { $0.index(width: w) })
        #expect(report.unsettledList.allSatisfy { PixelPosition(index: $0.index(width: w), width: w) == $0 })
        for i in 0..<(w * h) where !listed.contains(i) {
            #expect(none.field[i % w, i / w] == full.field[i % w, i / w], "pixel \(i)")
        }
        // A budget that covers the cheapest pixel alone (its count x the step's estimate).
        let viewport = try Viewport(location: location, width: w, height: h)
        let step = PerturbationSettings.mpfrStepSeconds(bits: viewport.precision.bits, power: 2)
        let costs = report.unsettledList.map { $0.index(width: w) }.map { i -> (Double, Int) in
            let n = Int(none.field.nBig[i])
            return (Double(n > 0 ? min(n + 1, location.maxIterations) : location.maxIterations) * step, i)
        }.sorted { $0 < $1 }
        #expect(costs[0].0 < costs[1].0, "two pixels of the same cost: the test cannot tell them apart")
        settings.perturbation.mpfrBudgetSeconds = (costs[0].0 + costs[1].0) / 2
        let one = try Renderer.render(location: location, settings: settings)
        let partial = try #require(one.report.perturbation)
        #expect(partial.reiteratedPixels == 1)
        #expect(partial.unsettledList == costs.dropFirst().map { PixelPosition(index: $0.1, width: w) }.sorted())
        let cheapest = costs[0].1
        #expect(one.field[cheapest % w, cheapest / w] == full.field[cheapest % w, cheapest / w])
    }
}

/// The 106-bit passes with the product estimate (`EstimateMethod.product`, a GPU render's
/// passes): they take the tables at the setting's epsilon times 2^-53, not the variance's 2^-64
/// first pass, whose truncation the product does not count.
@Suite("The 106-bit passes with the product estimate")
struct ProductWidePassTests {
    /// Pixels of e50 at 640 x 360 (index, n2, nBig, smooth) by direct MPFR (`fathom-bench
    /// mpfr-pixels e50 640x360 ...`): with the product and 2^-64 tables they came out up to
    /// 4.8e-7 off, unflagged (Documentation/Benchmarks.md).
    static let known: [MPFRPixel] = [
        (119269, 173410, 173414, 173414.9145439662),
        (98841, 176028, 176032, 176032.1837648870),
        (185682, 170600, 170604, 170604.5457509980),
        (149802, 170626, 170630, 170630.5719814967),
        (10982, 170613, 170617, 170617.7611126589),
        (678, 170654, 170658, 170658.4156576557),
    ]

    @Test(
        "e50 pixels the 106-bit passes take match direct MPFR: the product estimate with BLA, the variance with LA",
        arguments: [EstimateMethod.product, .variance])
    func product(estimate: EstimateMethod) throws {
        let location = try #require(Presets.named("e50")).location
        var settings = RenderSettings(width: 640, height: 360, path: .perturbation)
        settings.perturbation.estimate = estimate
        settings.perturbation.approximation = estimate == .product ? .bla : .linear
        settings.onlyPixels = Self.known.map(\.index)
        let result = try Renderer.render(location: location, settings: settings)
        let report = try #require(result.report.perturbation)
        #expect(report.doubleDoublePixels > 0 && report.unsettledPixels == 0)
        for k in Self.known { expectMatches(result.field, width: 640, k) }
    }
}

/// The coarse first pass (`PerturbationSettings.coarseFirstPass`): on flake at 400 x 200 the
/// probe takes it, the pixels it puts at risk go again at the setting's epsilon, and the
/// result agrees with a first pass at the setting's epsilon.
struct CoarseFirstPassTests {
    /// The pixels whose smooth value moved most against the setting's first pass, by direct
    /// MPFR (`fathom-bench --locations ../shared/locations mpfr-pixels flake 400x200 ...`).
    static let known: [MPFRPixel] = [
        (54107, 30472, 30476, 30476.9074515721),
        (25892, 30472, 30476, 30476.7698338385),
        (2964, 30472, 30476, 30476.7412956493),
        (77042, 30472, 30476, 30476.2638168882),
    ]

    @Test("flake 400x200: the probe takes the coarse first pass, and its pixels match MPFR and the fine pass")
    func flake() throws {
        let location = try #require(Presets.named("flake")).location
        var settings = RenderSettings(width: 400, height: 200, path: .perturbation)
        let coarse = try Renderer.render(location: location, settings: settings)
        let report = try #require(coarse.report.perturbation)
        #expect(
            report.firstPassEpsilon == PerturbationSettings.defaultBLAEpsilon
                * PerturbationSettings.firstPassEpsilonFactor)
        #expect(report.settingEpsilonPixels > 0 && report.unsettledPixels == 0)
        for k in Self.known { expectMatches(coarse.field, width: 400, k) }
        settings.perturbation.coarseFirstPass = false
        let fine = try Renderer.render(location: location, settings: settings)
        #expect(try #require(fine.report.perturbation).firstPassEpsilon == nil)
        var moved = 0, worst = 0.0
        for y in 0..<200 {
            for x in 0..<400 {
                let a = coarse.field[x, y], b = fine.field[x, y]
                #expect(a.n2 == b.n2 && a.nBig == b.nBig, "pixel (\(x), \(y)) counts")
                if a.smooth != b.smooth {
                    moved += 1
                    worst = Swift.max(worst, Swift.abs(a.smooth - b.smooth))
                }
            }
        }
        // Each within 1e-7 of the exact value; the coarse pass changes most pixels' last digits.
        #expect(moved > 0 && worst < 2e-7)
    }
}
