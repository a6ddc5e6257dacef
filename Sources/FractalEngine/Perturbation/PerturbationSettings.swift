import ArbitraryPrecision
import Foundation
import FractalNumerics

/// The delta type of a perturbation render (chosen once per render by the pixel spacing).
public enum DeltaType: String, Sendable, CaseIterable {
    /// Double deltas: 53 bits, for spacings above 2^-960 (about 1e-289).
    case double
    /// Floatexp deltas: 53 bits with an `Int` exponent, for spacings below 2^-960.
    case floatExp = "floatexp"
    /// Double-double deltas: 106 bits relative to |dz|, for views whose pixels need more
    /// bits below the spacing than Double deltas leave (Documentation/Perturbation.md).
    case doubleDouble = "double-double"

    /// Double while the spacing is above 2^-960 (about 1e-289): room for |dz|^2 terms and
    /// for deltas that shrink before they grow. FloatExp below.
    public static func forSpacing(log2: Double) -> DeltaType { log2 > -960 ? .double : .floatExp }
}

/// Where the first reference goes.
public enum ReferencePlacement: String, Sendable, CaseIterable {
    /// The default: the nucleus of a minibrot that dominates the view (z^2 + c, rebasing,
    /// no orbit file), else the center (`PlaceReferences`; Documentation/Perturbation.md,
    /// "Nucleus references").
    case automatic = "auto"
    /// The view's center.
    case center
    /// The point of a 5 x 5 probe of the view whose orbit is longest (the xFractal app's rule).
    case probe
    /// The nucleus of the minibrot that dominates the view (`MinibrotFinder`), when it lies
    /// inside the view: a reference that never escapes. Mandelbrot only; else the center.
    case nucleus
}

/// How the kernels estimate a pixel's smooth error (`PrecisionEstimate`; Perturbation.md,
/// "Precision").
public enum EstimateMethod: String, Sendable, CaseIterable {
    /// The error's variance tracked forward, each step's rounding and truncation added
    /// (`ErrorVariance`): the default on the CPU.
    case variance
    /// |dz/dc| as the product of |f'(z)| times sqrt(n) u |dc| (`ProductStretch`): what the GPU
    /// kernels compute. It assumes dz grows linearly with dc, which rebasing breaks: on the
    /// tlaloc view (1e-213) it let pixels 0.064 off in smooth pass unflagged.
    case product
}

/// Perturbation settings.
public struct PerturbationSettings: Sendable, Equatable {
    /// How pixels whose delta stops being small are handled: `rebase` (the default) or `detect`.
    public var glitchMode: GlitchMode
    /// Where the first reference goes: `automatic` by default.
    public var placement: ReferencePlacement
    /// Force a delta type instead of choosing by spacing.
    public var deltaType: DeltaType?
    /// References the detect mode may add after the first.
    public var referenceBudget: Int
    /// Extra MPFR bits beyond -log2(spacing) + 64.
    public var extraBits: Int
    /// Read the primary reference orbit from this file instead of computing it (it must serve
    /// the render: `ReferenceOrbit.serves`).
    public var loadReference: String?
    /// Write the primary reference orbit to this file.
    public var saveReference: String?
    /// Stage the primary reference orbit's file in this output of its caller's `OutputSet`
    /// instead (committed with the caller's other outputs; `saveReference` is then unused).
    public var referenceOutput: OutputSlot?
    /// Render the pixels at risk again (those whose smooth value the deltas may not hold to
    /// 1e-7, by the precision estimate) in the passes for pixels at risk, up to direct MPFR
    /// (Documentation/Guarantees.md). Off trades that guarantee for speed (`--precision-passes off`).
    public var settlesPixelsAtRisk: Bool = true
    /// The most CPU time the MPFR pass may take, estimated per pixel as its iterations (its
    /// count where the last pass saw it escape, else the limit) x `mpfrStepSeconds`: 30 s.
    /// Within it the cheapest pixels go first; the others are reported
    /// (`PerturbationReport.unsettledList`). CPU time, not wall time: the pixels it covers do
    /// not depend on the thread count.
    public var mpfrBudgetSeconds: Double = 30

    /// A generous estimate of one direct MPFR iteration's cost: measured here about 1 us at
    /// 1,100 bits and 400 us at 77,000 bits (products grow faster than linearly in bits).
    public static func mpfrStepSeconds(bits: Int, power: Int) -> Double {
        1.2e-6 * Math.pow(Double(bits) / 1000, 1.6) * Double(power - 1)
    }
    /// Skip iterations with the approximation tables (`approximation`: LA by default, BLA, or
    /// both) while the terms they drop stay below their epsilon (every family but Newton, every
    /// delta type). False: plain perturbation, one step an iteration. (A location file's key
    /// and the CLI's option keep their historic name, `bla`.)
    public var usesApproximation: Bool = true
    /// BLA's epsilon (Documentation/Design.md section 6; Documentation/Perturbation.md for the choice).
    public var blaEpsilon: Double = PerturbationSettings.defaultBLAEpsilon
    /// 2^-40: the default `blaEpsilon`.
    public static let defaultBLAEpsilon = 0x1p-40
    /// Which approximation the tables hold (BLA levels, LA with period detection, or both): LA
    /// by default on the CPU and on a GPU. On the H200 LA took BLA's place as a GPU's default once
    /// LA tables were built on all cores (e50 640x360 renders 0.73-0.84 s against BLA's
    /// 0.78-0.87 s; Documentation/Benchmarks.md).
    public var approximation: ApproximationMethod = .linear
    /// The precision estimate of every pass, on the CPU and the GPU.
    public var estimate: EstimateMethod = .variance
    /// LA's epsilon: its entries' truncation per linearized step, relative (Perturbation.md).
    public var laEpsilon: Double = PerturbationSettings.defaultLAEpsilon
    /// 2^-40: the default `laEpsilon`.
    public static let defaultLAEpsilon = 0x1p-40
    /// A first pass with coarser tables (`firstPassEpsilonFactor` times the epsilons), the
    /// pixels it puts at risk rendered again at the epsilons, where that pays: LA tables (not
    /// BLA levels), the CPU's variance estimate (which counts the coarser truncation) and the
    /// pixels at risk settled. Off: the first pass at the epsilons.
    public var coarseFirstPass: Bool = true
    /// 2^8: LA at 2^-32 for the default 2^-40. Flake 1e-50 800x800 then takes 58M loop steps
    /// against 99M and puts 8,540 pixels at risk against 57 (Documentation/Benchmarks.md).
    public static let firstPassEpsilonFactor = 0x1p8
    /// How a pass reads the reference orbit, on the CPU or the GPU: decoded once into the
    /// pass's delta type, or streamed from the compressed orbit as each pixel goes
    /// (`OrbitResidency`).
    public var orbitResidency: OrbitResidency = .automatic
    /// The lowest LA stage a streamed pass's table keeps (`LATable`'s `lowestStage`): stages 0
    /// and 1 hold 89% of fs_microfractal_e2608's entries (Documentation/Benchmarks.md).
    public var streamedStage: Int = 2
    /// The most Newton's method for a nucleus may cost with `.automatic` placement, in seconds
    /// by the per-step model, before the center's orbit ends at the period instead
    /// (`PlaceReferences.maxNewtonPeriod`). Tests set 0 to take the ended orbit on a view whose
    /// nucleus the default would take.
    package var newtonSeconds: Double = 60
    /// Reference orbits and BLA tables shared by renders of the same center (zoom sequences).
    public var cache: ReferenceCache?

    /// Settings with the given glitch mode, placement, delta type (nil: chosen by spacing), reference
    /// budget and extra bits; the others take their defaults.
    public init(
        glitchMode: GlitchMode = .rebase, placement: ReferencePlacement = .automatic, deltaType: DeltaType? = nil,
        referenceBudget: Int = 512, extraBits: Int = 0
    ) {
        self.glitchMode = glitchMode
        self.placement = placement
        self.deltaType = deltaType
        self.referenceBudget = referenceBudget
        self.extraBits = extraBits
    }

    /// Pauldelbrot's g for power p: 1e-6 for p = 2, ten times larger for each further power,
    /// at most 1e-2. The often cited 1e-7 for p = 2 missed glitches of 5 pixels of
    /// glitch_test_1 at 320x180 (wrong by up to 5 iterations against MPFR); 1e-6 caught all
    /// (`fathom-bench glitch`, Documentation/Perturbation.md).
    public static func glitchTolerance(power: Int) -> Double {
        min(1e-2, 1e-6 * Math.pow(10, Double(power - 2)))
    }
}

/// What a perturbation render did.
public struct PerturbationReport: Sendable {
    /// The delta type of the render's passes (forced or chosen by spacing), the 106-bit passes aside.
    public var deltaType: DeltaType
    /// The glitch mode used.
    public var glitchMode: GlitchMode
    /// The MPFR precision of the view's reference orbits, in bits (`finerOrbitBits` for a finer one).
    public var precisionBits: Int
    /// The reference points used, first the primary one, as decimal strings.
    public var references: [(re: String, im: String)]
    /// Length of the primary reference orbit and whether it escaped.
    public var referenceLength: Int
    /// Whether the primary reference orbit escaped (|Z| > 2) before the iteration limit.
    public var referenceEscaped: Bool
    /// The bytes the primary reference orbit is held in (compressed, with its tables), per step.
    public var referenceBytesPerStep: Double = 0
    /// The device whose steps computed the orbits (`ReferenceStepDevice`), or nil: MPFR on the CPU.
    public var referenceDevice: String? = nil
    /// A reference computed for one period and wrapped by rebasing: the period.
    public var referencePeriod: Int? = nil
    /// Whether that reference is a minibrot's nucleus (else the center's orbit, ended at the
    /// view's period: `PeriodWatch.Ending`).
    public var referenceIsNucleus = false
    /// Why the reference placement asked for was not used (a nucleus not found in view).
    public var referenceNote: String? = nil
    /// Pixels the detect mode flagged in the first pass, and those left after correction.
    public var glitchedPixels: Int
    /// Pixels still flagged when correction stopped (the budget spent or no progress); 0 in rebase mode.
    public var uncorrectedPixels: Int
    /// Seconds spent fetching and computing reference orbits, all references included (elapsed time).
    public var referenceSeconds: Double
    /// The first pass's table epsilon where it was coarser than the setting's
    /// (`PerturbationSettings.coarseFirstPass`), and the pixels at risk it left, rendered again
    /// at the setting's epsilon.
    public var firstPassEpsilon: Double? = nil
    /// The pixels at risk the coarser first pass left, rendered again at the setting's epsilon (0 without one).
    public var settingEpsilonPixels: Int = 0
    /// Pixels rendered again with BLA at epsilon 2^-53 because their smooth value was at risk.
    public var fineApproximationPixels: Int = 0
    /// Pixels rendered again with 106-bit deltas (double-double, or extended-range
    /// double-double below 2^-960) because their smooth value was at risk.
    public var doubleDoublePixels: Int
    /// Of those, the pixels rendered again with 106-bit deltas at the BLA epsilon times 2^-53
    /// (with the variance the first 106-bit pass takes the tables at 2^-64).
    public var fineWidePixels: Int = 0
    /// The precision in bits of the orbit the 106-bit passes ran against where it was finer
    /// than the view's (its own rounding would have kept the pixels at risk); nil: the view's.
    public var finerOrbitBits: Int? = nil
    /// The pixels rendered against that finer orbit: all the 106-bit ones, or none.
    public var finerOrbitPixels: Int { finerOrbitBits == nil ? 0 : doubleDoublePixels }
    /// Pixels iterated again directly in MPFR because it was still at risk.
    public var reiteratedPixels: Int
    /// Pixels still at risk after the 106-bit pass that the MPFR budget did not cover
    /// (`PerturbationSettings.mpfrBudgetSeconds`): their counts are very likely right, their smooth
    /// values not checked to 1e-7.
    public var unsettledPixels: Int = 0
    /// Those pixels, row by row.
    public var unsettledList: [PixelPosition] = []
    /// Seconds spent building BLA tables (all references).
    public var approximationSeconds: Double = 0
    /// Loop steps over all pixels and passes (each a BLA step or one perturbation step), and
    /// how many of them were BLA steps.
    public var loopSteps: Int = 0
    /// The BLA steps among `loopSteps`.
    public var approximationSteps: Int = 0
    /// Pixels proven interior before their first step (`InteriorTest`): not escaped.
    public var interiorPixels: Int = 0
    /// Passes that read the orbit streamed from its compressed form (`OrbitResidency`).
    public var streamedPasses: Int = 0
    /// Each pass in the order it ran, with its wall time and loop steps.
    package var passes: [PassTiming] = []
}

/// How a pass reads the reference orbit, on the CPU or the GPU (Documentation/Perturbation.md,
/// "Orbits streamed to the kernel").
public enum OrbitResidency: String, Sendable, CaseIterable {
    /// Streamed where the orbit is long against the pass's pixels (`streams`), else decoded.
    case automatic = "auto"
    /// Decoded into the delta type for each pass: one load a step, 16 to 48 bytes a step held.
    case decoded
    /// Decoded from the compressed orbit as pixels go, with a lean LA table
    /// (`PerturbationSettings.streamedStage`): where the formula adds dc, the reference does
    /// not wrap and the tables are LA alone; elsewhere decoded.
    case streamed

    /// Orbits of at least this many steps stream automatically...
    public static let automaticMinimumSteps = 1 << 20
    /// ...where they have at least this many steps a pixel of the pass: about where the
    /// lean table's extra plain steps (about 65 us a pixel on fs_microfractal_e2608) cost what
    /// the whole table's build and the decoding save (Documentation/Benchmarks.md).
    public static let automaticStepsPerPixel = 256

    /// Whether a pass of `pixels` pixels against an orbit of `steps` steps streams it, where it
    /// can (`streamed`'s conditions).
    public func streams(steps: Int, pixels: Int) -> Bool {
        switch self {
        case .decoded: false
        case .streamed: true
        case .automatic:
            steps >= Self.automaticMinimumSteps && steps / Self.automaticStepsPerPixel >= Swift.max(pixels, 1)
        }
    }
}

/// How perturbation handles pixels whose delta stops being small against the reference.
public enum GlitchMode: String, Sendable, CaseIterable {
    /// Zhuoran's rebasing (2021): when |Z(m) + dz| < |dz|, or at the end of the reference,
    /// continue from the start of the critical orbit (Z(0) = 0) with dz = z. One reference
    /// serves all (two for Julia: its reference pixel's orbit and the critical orbit).
    case rebase
    /// Pauldelbrot's test |Z(m) + dz|^2 < g |Z(m)|^2 flags a pixel as glitched; glitched
    /// pixels are rendered again from new references placed among them.
    case detect
}
