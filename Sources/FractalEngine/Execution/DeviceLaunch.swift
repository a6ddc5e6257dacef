import FractalNumerics

// The GPU side of the executor seam. A pass with a device form describes itself as a
// `DeviceLaunch`: arrays of bytes in the layouts FathomKernelABI.h declares, and the pass's
// parameters. A backend (module FathomGPU: CUDA, or its CPU emulation) runs the launch and hands
// back one outcome per item; the engine finishes them with the CPU kernel's own code (smooth
// value, precision estimate, flags), so a backend never sees a kernel.

/// A GPU backend as the engine sees it.
package protocol KernelLauncher: AnyObject, Sendable {
    /// The device, for reports.
    var deviceName: String { get }
    /// Seconds in passes, passes run, and uploads a copy kept on the device saved, since the
    /// backend was opened (reports take differences).
    var counters: LauncherCounters { get }
    /// Runs `launch` over its items in one or more launches, calling `completed` with each
    /// launch's items and their outcomes (`PerturbationOutcome` or `DirectOutcome`, in item
    /// order), reporting progress from `progressBase` to 1 through `control`. False
    /// when this backend does not run the launch (its kernels or memory cannot): the engine then
    /// runs the pass on the CPU. A launch that runs on the host's cores (the emulation, the
    /// CPU's lanes) uses at most `threads` of them: the render's.
    func run(
        _ launch: DeviceLaunch, threads: Int, control: RenderControl?, progressBase: Double,
        completed: (Range<Int>, UnsafeRawBufferPointer) throws -> Void
    ) throws -> Bool
    /// Where this backend takes a reference orbit's z^2 + c steps (nil: not at all), used from
    /// `ReferenceThreading.deviceMinimumBits` on.
    var referenceDevice: (any ReferenceStepDevice)? { get }
    /// The host threads its launches run on (0: a device's own), and the pixels a launch
    /// keeps in flight a thread (1: one at a time), for the passes' timings.
    var hostThreads: Int { get }
    var laneWidth: Int { get }
    /// Whether it is a form of the CPU (its passes priced as the CPU's, by their steps), not a
    /// device (the emulation counts as a device: it stands in for the GPU in the tests).
    var runsOnHost: Bool { get }
}

extension KernelLauncher {
    package var referenceDevice: (any ReferenceStepDevice)? { nil }
    package var hostThreads: Int { 0 }
    package var laneWidth: Int { 1 }
    package var runsOnHost: Bool { false }
}

/// What a `KernelLauncher` has done since it was opened.
package struct LauncherCounters: Sendable {
    package var seconds = 0.0
    package var passes = 0
    package var residentHits = 0
    package init(seconds: Double = 0, passes: Int = 0, residentHits: Int = 0) {
        self.seconds = seconds
        self.passes = passes
        self.residentHits = residentHits
    }
}

/// A pass as a backend runs it.
package enum DeviceLaunch: Sendable {
    case perturbation(PerturbationLaunch)
    case direct(DirectLaunch)
}

/// An array a launch reads, as bytes. `content` names what it holds (an orbit or a part of a
/// BLA table): a backend may keep device copies under that name for later passes and frames.
package struct LaunchArray: Sendable {
    package let count: Int
    package let byteCount: Int
    package let content: DeviceContent?
    /// Reads the array it captured (an immutable array of Sendable elements).
    private let reader: @Sendable (_ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Void

    init<T: Sendable>(_ array: [T], content: DeviceContent? = nil) {
        count = array.count
        byteCount = array.count * MemoryLayout<T>.stride
        self.content = content
        reader = { body in try array.withUnsafeBytes(body) }
    }

    /// Calls `body` with the array's bytes.
    package func withBytes(_ body: (UnsafeRawBufferPointer) throws -> Void) throws { try reader(body) }
}

/// The name of a launch array's content: the orbit it comes from (or whose table it is part
/// of), and which array. Opaque to backends: they compare names, nothing else.
package struct DeviceContent: Hashable, Sendable {
    let orbit: OrbitIdentity
    let delta: ObjectIdentifier
    let table: TableIdentity?
    let part: Part

    enum Part: Hashable, Sendable {
        case orbit, steps, radii, levelStarts, laEntries, chainAt
        case streamBytes, streamKeys, streamKeyNibbles, tinySteps, tinyValues
    }
}

/// A perturbation pass (`PerturbationPass.deviceForm`): Double, FloatExp or 106-bit (DoubleDouble,
/// DoubleDoubleExp) deltas, LA and/or BLA, rebasing or Pauldelbrot detection, z^2 + c (Julia:
/// without dc) or z^p + c.
package struct PerturbationLaunch: Sendable {
    /// The delta type; `rawValue` is the ABI's FK_DELTA_ constant.
    package enum Delta: Int32, Sendable, CaseIterable {
        case double = 0
        case floatExp = 1
        case doubleDouble = 2
        case doubleDoubleExp = 3

        /// The engine's type of it (the layouts above are read from it).
        var scalar: any DeltaScalar.Type {
            switch self {
            case .double: Double.self
            case .floatExp: FloatExp.self
            case .doubleDouble: DoubleDouble.self
            case .doubleDoubleExp: DoubleDoubleExp.self
            }
        }

        /// The case whose engine type is `type`; nil for a type the kernels do not take.
        init?(_ type: any DeltaScalar.Type) {
            guard let delta = Delta.allCases.first(where: { $0.scalar == type }) else { return nil }
            self = delta
        }

        /// The kernels' name for it (`fathom_perturb_<name>`).
        package var kernelName: String {
            switch self {
            case .double: "double"
            case .floatExp: "floatexp"
            case .doubleDouble: "doubledouble"
            case .doubleDoubleExp: "doubledoubleexp"
            }
        }
    }
    /// A table (`ApproximationTable`): its BLA steps (`BLAStep<D>`), radii (D), level starts (Int64) and
    /// levels (nil: none), and its LA entries (`LAEntry<D>`) with their chain offsets per orbit
    /// index (Int32) and load scale (nil: none).
    package struct Table: Sendable {
        package let steps: LaunchArray?
        package let radii: LaunchArray?
        package let levelStarts: LaunchArray?
        package let levels: Int
        package let laEntries: LaunchArray?
        package let chainAt: LaunchArray?
        package let laLoadScale: Double
    }
    /// The items' dc (Complex<D>): per column and row (D; a whole image without rotation), or one
    /// per item.
    package enum Deltas: Sendable {
        case grid(columns: LaunchArray, rows: LaunchArray, width: Int)
        case list(LaunchArray)
    }

    /// The orbit in its compressed form (`CompressedOrbit`), which each item decodes as it
    /// goes (`StreamedCursor`, FathomKernelABI.h's FKStream): its nibbles (UInt8), keys
    /// (Double: re, im, and the low words where it has them), the keys' nibble offsets (Int),
    /// the tiny table's steps (Int, ascending) and values (Complex<D>).
    package struct Stream: Sendable {
        package let bytes: LaunchArray
        package let nibbleCount: Int
        package let keys: LaunchArray
        package let keyNibbles: LaunchArray
        package let tinySteps: LaunchArray
        package let tinyValues: LaunchArray
        /// c's re.hi, re.lo, im.hi, im.lo.
        package let c: [Double]
        package let power: Int
        package let lowWords: Bool
        /// Whether the values in D take both words (106-bit deltas, an orbit with low words).
        package let wide: Bool
    }

    package let delta: Delta
    /// Complex<D> values Z(0) ... Z(orbitCount - 1); nil where the pass streams the orbit.
    package let orbit: LaunchArray?
    /// The orbit streamed (nil: decoded in `orbit`); it is then its own rebase orbit.
    package let stream: Stream?
    /// The orbit's steps.
    package let orbitCount: Int
    /// The critical orbit a pixel continues on after rebasing; nil: `orbit` itself.
    package let rebaseOrbit: LaunchArray?
    /// nil: no table (plain perturbation).
    package let table: Table?
    /// The rebase orbit's table (nil: none, or `table` itself when `rebaseSharesTable`).
    package let rebaseTable: Table?
    package let rebaseSharesTable: Bool
    package let deltas: Deltas
    package let count: Int
    package let maxIterations: Int
    package let power: Int
    /// Whether dc enters each step (false for Julia).
    package let addsDC: Bool
    /// Pauldelbrot's detection instead of rebasing, with its g.
    package let detect: Bool
    package let tolerance: Double
    /// Whether the kernels track the error variance (`ErrorVariance`) instead of the product
    /// of |f'(z)|^2, with the table's epsilon for its truncation terms (0 without a table).
    package let variance: Bool
    package let epsilon: Double
    /// z^p + c by Horner's rule over binom(p, k), k = 0 ... p; nil: z^2 (+ c).
    package let binomials: [Double]?

    /// The highest power the backends' kernels take (FK_MAX_POWER).
    package static let maximumPower = 16

    /// The layout of one BLA step of `delta` (`BLAStep<D>`): its stride and the offsets of b,
    /// radius, stretchExponent and inverseRadiusSquared. A backend checks it against its own.
    package static func stepLayout(_ delta: Delta) -> [Int] { stepLayout(delta.scalar) }

    private static func stepLayout<D: DeltaScalar>(_: D.Type) -> [Int] {
        typealias Step = BLAStep<D>
        return [
            MemoryLayout<Step>.stride, MemoryLayout<Step>.offset(of: \Step.b)!,
            MemoryLayout<Step>.offset(of: \Step.radius)!,
            MemoryLayout<Step>.offset(of: \Step.stretchExponent)!,
            MemoryLayout<Step>.offset(of: \Step.inverseRadiusSquared)!,
        ]
    }

    /// The layout of one LA entry of `delta` (`LAEntry<D>`): its stride and the offsets of cc,
    /// threshold, dcThreshold, inverseThreshold, inverseDCThreshold, stretchSignificand,
    /// ccSignificand, length and chainEnd.
    package static func laEntryLayout(_ delta: Delta) -> [Int] { laEntryLayout(delta.scalar) }

    private static func laEntryLayout<D: DeltaScalar>(_: D.Type) -> [Int] {
        typealias E = LAEntry<D>
        let fields: [PartialKeyPath<E>] = [
            \E.cc, \E.threshold, \E.dcThreshold, \E.inverseThreshold, \E.inverseDCThreshold,
            \E.stretchSignificand, \E.ccSignificand, \E.length, \E.chainEnd,
        ]
        return [MemoryLayout<E>.stride] + fields.map { MemoryLayout<E>.offset(of: $0)! }
    }

    /// The strides of a chain offset (`LATable.ChainOffset`) and a level start (Int), and the
    /// offsets of the second field of FloatExp (exponent), DoubleDouble (lo) and DoubleDoubleExp
    /// (exponent): what a backend checks beside the records' layouts.
    package static var scalarLayouts: [Int] {
        [
            MemoryLayout<LATable<Double>.ChainOffset>.stride, MemoryLayout<Int>.stride,
            MemoryLayout<FloatExp>.offset(of: \.exponent)!, MemoryLayout<DoubleDouble>.offset(of: \.lo)!,
            MemoryLayout<DoubleDoubleExp>.offset(of: \.exponent)!,
        ]
    }

    /// The stride of one Complex<D> and the offset of its imaginary part.
    package static func complexLayout(_ delta: Delta) -> [Int] { complexLayout(delta.scalar) }

    private static func complexLayout<D: DeltaScalar>(_: D.Type) -> [Int] {
        [MemoryLayout<Complex<D>>.stride, MemoryLayout<Complex<D>>.offset(of: \.im)!]
    }
}

/// How one item of a perturbation launch ended (FKPixelOut in FathomKernelABI.h, field for
/// field: a backend checks the layout).
@usableFromInline package struct PerturbationOutcome: Sendable {
    /// The values of `kind` (FK_MAX_ITERATIONS, FK_ESCAPED, FK_BOUNDED): the item reached the
    /// iteration limit; it escaped; or, in detect mode, it stopped early as glitched (`ratio`)
    /// or at the end of the reference orbit without escaping (`ratio` 0).
    @usableFromInline package static let maxIterations: UInt32 = 0, escaped: UInt32 = 1, bounded: UInt32 = 2
    /// How the item ended: `maxIterations`, `escaped` or `bounded`.
    @usableFromInline package var kind: UInt32
    /// The first n >= 1 with |z(n)| > 2 (0: none).
    @usableFromInline package var n2: UInt32
    /// The escape count (`escaped`).
    @usableFromInline package var n: UInt32
    /// Loop steps taken, BLA and plain.
    @usableFromInline package var steps: UInt32
    /// The loop steps that were BLA steps or LA entries.
    @usableFromInline package var approximationSteps: UInt32
    /// Unused; keeps the layout of FKPixelOut (always 0).
    package var pad: UInt32
    /// |z|^2 at escape.
    @usableFromInline package var r2: Double
    /// The precision estimate's running value, errorScale * 2^errorScaleExponent: |dz/dc|^2
    /// under the product estimate, the error's variance under the variance estimate.
    @usableFromInline package var errorScale: Double
    /// Its binary exponent (see `errorScale`).
    @usableFromInline package var errorScaleExponent: Int64
    /// The sum of the approximation steps' truncation loads, scaled to a share of dc, for the
    /// precision estimate (`PixelRun.blaLoad`).
    @usableFromInline package var blaLoad: Double
    /// Detect mode: |z|^2 / |Z|^2 where it glitched.
    @usableFromInline package var ratio: Double
}

/// Direct Double escape time, z <- z^p + c (Julia: z0 = pixel) over a grid without rotation.
package struct DirectLaunch: Sendable {
    /// Re per column and Im per row, as Double.
    package let columns: LaunchArray
    package let rows: LaunchArray
    package let width: Int
    package let count: Int
    package let maxIterations: Int
    package let power: Int
    package let juliaC: Complex<Double>?
}

/// How one pixel of a direct launch ended (FKDirectOut): its counts, |z|^2 at nBig, and for
/// z^2 + c the rounding check's error variance e2 * 2^exponent.
@usableFromInline package struct DirectOutcome: Sendable {
    /// The first n >= 1 with |z(n)| > 2 (0: none within the limit).
    @usableFromInline package var n2: UInt32
    /// The first n with |z(n)| > 65536 (0: none within the limit).
    @usableFromInline package var nBig: UInt32
    /// |z|^2 at `nBig`.
    @usableFromInline package var r2: Double
    /// The significand of the rounding check's error variance (z^2 + c only).
    @usableFromInline package var e2: Double
    /// The binary exponent of the rounding check's error variance (see `e2`).
    @usableFromInline package var exponent: Int64
}
