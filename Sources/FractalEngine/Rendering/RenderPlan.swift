import ArbitraryPrecision
internal import CMPFR
import Foundation
import FractalNumerics

/// What a render will take, known before it starts: the bits the view needs, the arithmetic
/// path, and for perturbation the reference orbit's precision, its most steps, an upper bound
/// of its memory and an estimate of its time on this machine (from MPFR products timed here
/// at that precision). `fathom render` prints it before a long render and refuses a plan
/// whose memory bound exceeds the machine's (Documentation/Reliability.md).
public struct RenderPlan: Sendable {
    /// Bits the view needs: log2(coordinate scale / spacing) + guard bits.
    public var requiredBits: Int
    /// The arithmetic path the render will take: `RenderSettings.path`, or the automatic one.
    public var path: ArithmeticPath
    /// Perturbation: the reference orbit's MPFR precision (nil on the direct paths).
    public var referenceBits: Int?
    /// Perturbation: the most steps the reference orbit takes (the iteration limit).
    public var referenceSteps: Int
    /// Perturbation: bytes of the orbit and its BLA table if the reference never escapes.
    public var referenceBytes: Int
    /// Perturbation: the bound a reference step takes in it (`bytesPerStep(settings:...)`).
    public var bytesPerStep = RenderPlan.bytesPerReferenceStep
    /// Perturbation: seconds for the whole reference orbit here, if it never escapes.
    public var referenceSeconds: Double

    /// Bytes a reference step takes at most where a pass holds the orbit decoded: the stored
    /// orbit with its low words (32), the orbit in the delta type (32 for FloatExp) and the
    /// approximation's tables, at most BLA's two steps of about 112 each (LA's entries are
    /// fewer) (measured with BLA: 310 bytes a step at the peak of a 5.4M-step orbit).
    public static let bytesPerReferenceStep = 320
    /// Bytes a reference step takes at most where every pass streams the orbit
    /// (`OrbitResidency`): the compressed orbit (2.8 bytes a step typically), the lean LA
    /// table's chain index (4) and entries, and the build's plan (measured: 36 bytes a step at
    /// the peak of a 16x16 render of a 5.4M-step orbit, Documentation/Benchmarks.md).
    public static let bytesPerStreamedStep = 64

    /// Bytes a reference step takes at most in a render of `settings` with `pixels` pixels
    /// against an orbit of up to `steps` steps: `bytesPerStreamedStep` where every pass
    /// streams it (a formula that adds dc, LA alone, and `OrbitResidency.streams` for the
    /// whole image; on the CPU or the GPU), else `bytesPerReferenceStep`.
    public static func bytesPerStep(settings: RenderSettings, addsDC: Bool, steps: Int, pixels: Int) -> Int {
        let streams =
            addsDC
            && (!settings.perturbation.usesApproximation || settings.perturbation.approximation == .linear)
            && settings.perturbation.orbitResidency.streams(steps: steps, pixels: pixels)
        return streams ? bytesPerStreamedStep : bytesPerReferenceStep
    }

    /// The physical memory of this machine.
    public static var physicalMemory: Int {
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), size = sysconf(Int32(_SC_PAGESIZE))
        guard pages > 0, size > 0 else { return Int.max }
        let (bytes, overflow) = pages.multipliedReportingOverflow(by: size)
        return overflow ? Int.max : bytes
    }

    /// The most reference steps that fit in `memory` bytes.
    public static func maximumReferenceSteps(memory: Int = physicalMemory, bytesPerStep: Int = bytesPerReferenceStep)
        -> Int
    { memory / bytesPerStep }
}

extension Renderer {
    /// The plan of `location` at `settings`, without rendering (a few MPFR products timed at
    /// the reference's precision when it is high).
    public static func plan(location: Location, settings: RenderSettings) throws -> RenderPlan {
        let viewport = try Viewport(location: location, settings: settings)
        try settings.validate()
        let bits = requiredBits(viewport: viewport, guardBits: settings.guardBits)
        let path = settings.path ?? automaticPath(bits: bits, guardBits: settings.guardBits, family: location.family)
        var plan = RenderPlan(
            requiredBits: bits, path: path, referenceBits: nil, referenceSteps: 0, referenceBytes: 0,
            referenceSeconds: 0)
        if case .newton = location.family { return plan }
        guard path == .perturbation else { return plan }
        let referenceBits = PerturbationRenderer.orbitPrecision(
            location: location, viewport: viewport, settings: settings.perturbation
        ).bits
        let steps = location.maxIterations
        plan.referenceBits = referenceBits
        plan.referenceSteps = steps
        plan.bytesPerStep = RenderPlan.bytesPerStep(
            settings: settings, addsDC: { if case .julia = location.family { false } else { true } }(), steps: steps,
            pixels: viewport.width * viewport.height)
        let (bytes, overflow) = (steps + 1).multipliedReportingOverflow(by: plan.bytesPerStep)
        plan.referenceBytes = overflow ? Int.max : bytes
        let shared = ReferenceThreading.choose(
            bits: referenceBits, power: location.family.power, threads: settings.workerThreads)
        plan.referenceSeconds =
            Double(steps) * referenceStepSeconds(bits: referenceBits, power: location.family.power)
            / (shared == .serial ? 1 : ReferenceThreading.leastSpeedup)
        return plan
    }

    /// Seconds one reference step takes here at `bits`: z^2 + c costs about three products
    /// (z^p about 2 log2 p + 1); timed on MPFR from `timedBits` (products repeated for at least
    /// a millisecond), below that the formula of `PerturbationSettings.mpfrStepSeconds`.
    /// Until 2026-12-03 timed from 20,000 bits only: the formula, generous by design (it sizes
    /// the MPFR budget), put fs_microfractal_e2608's orbit (8,802 bits) at "up to 4:22" for
    /// 44 s (Benchmarks.md).
    static func referenceStepSeconds(bits: Int, power: Int) -> Double {
        let products = power == 2 ? 3.0 : 2 * Math.log2(Double(power)) + 1
        guard bits >= timedBits else {
            return PerturbationSettings.mpfrStepSeconds(bits: bits, power: power) / Double(power - 1) * products / 3
        }
        var x = mpfr_t(), y = mpfr_t(), z = mpfr_t()
        mpfr_init2(&x, mpfr_prec_t(bits))
        mpfr_init2(&y, mpfr_prec_t(bits))
        mpfr_init2(&z, mpfr_prec_t(bits))
        defer {
            mpfr_clear(&x)
            mpfr_clear(&y)
            mpfr_clear(&z)
        }
        mpfr_const_pi(&x, MPFR_RNDN)
        mpfr_sqrt_ui(&y, 2, MPFR_RNDN)
        mpfr_mul(&z, &x, &y, MPFR_RNDN)
        var rounds = 0
        let start = DispatchTime.now().uptimeNanoseconds
        var elapsed: UInt64 = 0
        repeat {
            for _ in 0..<4 { mpfr_mul(&z, &x, &y, MPFR_RNDN) }
            rounds += 4
            elapsed = DispatchTime.now().uptimeNanoseconds - start
        } while elapsed < 1_000_000 && rounds < 100_000
        return Double(elapsed) / 1e9 / Double(rounds) * products
    }

    /// The precision from which `referenceStepSeconds` times MPFR's products.
    static var timedBits: Int { 2_000 }
}
