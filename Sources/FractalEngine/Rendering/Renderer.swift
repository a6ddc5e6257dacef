import ArbitraryPrecision
import Foundation
import FractalNumerics

/// How the pixels of a render are iterated (Documentation/Design.md section 4).
public enum ArithmeticPath: String, Sendable, CaseIterable {
    /// Direct iteration in Double (53 bits).
    case double
    /// Direct iteration in double-double (106 bits).
    case doubleDouble = "double-double"
    /// Deltas against an MPFR reference orbit (Documentation/Perturbation.md): any depth.
    case perturbation

    /// Significand bits the type carries.
    public var bits: Int {
        switch self {
        case .double: 53
        case .doubleDouble: 106
        case .perturbation: Int.max
        }
    }
}

/// Image size and engine settings of a render.
public struct RenderSettings: Sendable, Equatable {
    /// The image width in pixels (for an exponential map, the map's width).
    public var width: Int
    /// The image height in pixels (for an exponential map, the rows' count).
    public var height: Int
    /// Worker threads; 0 means one per core.
    public var threads: Int
    /// The threads a render takes: `threads`, or one per core for 0.
    public var workerThreads: Int { threads > 0 ? threads : Parallel.cores }
    /// Bits the arithmetic must carry below the pixel spacing (relative to the coordinates'
    /// magnitude) before a cheaper type is used: 40 by default (Documentation/NumberTypes.md).
    public var guardBits: Int
    /// Pixels per tile (a unit of scheduling and progress).
    public var tilePixels: Int
    /// The default guard bits: 40, measured against the oracle (Documentation/NumberTypes.md).
    public static let defaultGuardBits = 40

    /// Force a path instead of the cheapest one that carries enough bits.
    public var path: ArithmeticPath?
    /// Settings of the perturbation path.
    public var perturbation: PerturbationSettings
    /// Render only these pixels (row-major indices); the others stay "did not escape". For
    /// checking a deep location on its sampled pixels through the normal render path.
    public var onlyPixels: [Int]?
    /// Double lanes of z^2 + c: send the pixels whose result Double may not carry (smooth
    /// off by more than 1e-7, by the rounding check) to double-double. False: Double alone.
    public var checkRounding = true
    /// Extra per-pixel data to compute (`IterationField.extras`): the derivative's distance
    /// estimate and slope, and an orbit trap. Not for Newton.
    public var extras = ExtrasRequest()
    /// Where the per-pixel kernels run (Documentation/GPU.md): `Renderer.render` opens it. The
    /// CPU by default in the library (FathomGPU adds the GPU backends); the CLI's default is
    /// `auto`.
    public var backend: ComputeBackend = .cpu
    /// CUDA kernels compiled with --fmad=false: every operation rounds as on the CPU, and the
    /// iteration data equal the CPU's (about 7% slower).
    public var gpuExact = false
    /// The order in which workers take the tiles of every CPU pass: for tests, which show that
    /// the field does not depend on it (`TileOrder`).
    package var tileOrder: TileOrder = .ascending
    /// The flat image (the default), or rows of an exponential map: then `width` and `height`
    /// must be the map's width and the rows' count (`ExponentialMap`).
    public var projection: Viewport.Projection = .flat

    /// Settings for a `width` x `height` image; those not given here take their defaults (the
    /// rounding check on, no extras, the CPU, ascending tiles, the flat image).
    public init(
        width: Int, height: Int, threads: Int = 0, guardBits: Int = RenderSettings.defaultGuardBits,
        tilePixels: Int = 2048,
        path: ArithmeticPath? = nil, perturbation: PerturbationSettings = PerturbationSettings()
    ) {
        self.width = width
        self.height = height
        self.threads = threads
        self.guardBits = guardBits
        self.tilePixels = tilePixels
        self.path = path
        self.perturbation = perturbation
    }
}

extension RenderSettings {
    /// The worker threads a render takes: 0 (one per core) to 1,024.
    public static let threadRange = 0...1024
    /// The guard bits a render takes.
    public static let guardBitsRange = 0...64
    /// The extra MPFR bits of a reference orbit (`PerturbationSettings.extraBits`).
    public static let extraBitsRange = 0...1_000_000

    /// Throws `RenderError.invalidSetting` for a setting outside what the engine takes, before
    /// any work: threads, guard bits, tile size, the pixels of `onlyPixels` (inside the
    /// image), the reference's extra bits and the streamed stage. The image size is the
    /// `Viewport`'s to check (`LocationError`). `Renderer.render` and `Renderer.plan` call it.
    public func validate() throws(RenderError) {
        func refuse(_ name: String, _ reason: String) -> RenderError { .invalidSetting(name: name, reason: reason) }
        guard Self.threadRange.contains(threads) else {
            throw refuse("threads", "\(threads) is outside 0...1024 (0: one per core)")
        }
        guard Self.guardBitsRange.contains(guardBits) else {
            throw refuse("guardBits", "\(guardBits) is outside 0...64")
        }
        guard tilePixels >= 1 && tilePixels <= 1 << 30 else {
            throw refuse("tilePixels", "\(tilePixels) is outside 1...2^30")
        }
        guard Self.extraBitsRange.contains(perturbation.extraBits) else {
            throw refuse("perturbation.extraBits", "\(perturbation.extraBits) is outside 0...1000000")
        }
        guard perturbation.streamedStage >= 0 && perturbation.streamedStage <= 64 else {
            throw refuse("perturbation.streamedStage", "\(perturbation.streamedStage) is outside 0...64")
        }
        if let only = onlyPixels {
            let (count, overflow) = width.multipliedReportingOverflow(by: height)
            if let bad = only.first(where: { overflow || $0 < 0 || $0 >= count }) {
                throw refuse("onlyPixels", "index \(bad) is outside the \(width) x \(height) image")
            }
        }
    }
}

/// What a render did.
public struct RenderReport: Sendable {
    /// The arithmetic path the render took.
    public var path: ArithmeticPath
    /// Bits the view needs: log2(coordinate scale / spacing) + guard bits.
    public var requiredBits: Int
    /// The worker threads it ran on.
    public var threads: Int
    /// Wall-clock seconds of the whole render.
    public var seconds: Double
    /// Iterations the field represents (`IterationField.iterationsRepresented`): each pixel's
    /// `nBig`, or the limit where it did not escape.
    public var iterations: Int
    /// Double path: pixels the rounding check sent to double-double.
    public var doubleDoublePixels: Int = 0
    /// Set when the path is perturbation.
    public var perturbation: PerturbationReport?
    /// The backend the kernels ran on: `RenderSettings.backend`, or `.cpu` where that gave no
    /// launcher (`auto` without a GPU on a CPU without AVX2; the reason in `warnings` where a
    /// driver failed). `auto` without a GPU on AVX2 or AVX-512 keeps `.auto` with `device`
    /// "CPU lanes, N wide".
    public var backend = ComputeBackend.cpu
    /// The device they ran on: "cpu", or the backend's launcher (a GPU's name, "CPU emulation",
    /// "CPU lanes, 8 wide"); `gpuSeconds` and `gpuPasses` count that launcher's passes.
    public var device = "cpu"
    /// Seconds in GPU passes (uploads, kernels, downloads, the host's finishing).
    public var gpuSeconds = 0.0
    /// Passes the GPU backend ran (the others ran on the CPU).
    public var gpuPasses = 0
    /// Orbit and table uploads a copy kept on the device from an earlier pass or render saved
    /// (approximate when several renders share the backend at once).
    public var gpuUploadsSaved = 0
    /// Things the user should know (a GPU that could not be used under `auto`).
    public var warnings: [String] = []
}

/// A finished render: the per-pixel results and the report.
public struct RenderResult: Sendable {
    /// The per-pixel results.
    public var field: IterationField
    /// What the render did.
    public var report: RenderReport
}

/// Renders locations into iteration fields.
public enum Renderer {
    /// The bits a view needs: log2(max(2, |center|) / s) rounded up, plus `guardBits`.
    package static func requiredBits(viewport: Viewport, guardBits: Int) -> Int {
        let scale = max(2, viewport.centerDD.re.hi.magnitude + viewport.centerDD.im.hi.magnitude)
        // Never below zero (a view wider than its center's scale needs no bits below it).
        return max(0, Int((Math.log2(scale) - viewport.log2Spacing).rounded(.up))) + guardBits
    }

    /// The cheapest path that carries `bits`.
    package static func cheapestPath(forBits bits: Int) -> ArithmeticPath {
        if bits <= ArithmeticPath.double.bits { return .double }
        if bits <= ArithmeticPath.doubleDouble.bits { return .doubleDouble }
        return .perturbation
    }

    /// The spacing (in bits below the coordinates' scale) down to which z^2 + c takes checked
    /// Double lanes before double-double: the rounding check sends the pixels Double cannot
    /// carry to double-double, and past this few would be left to Double.
    package static let checkedDoubleSpacingBits = 33

    /// The path a render takes by itself: the cheapest that carries `bits`, except that
    /// Mandelbrot and Julia views double-double would take go to checked Double lanes while
    /// their spacing needs at most `checkedDoubleSpacingBits`.
    package static func automaticPath(bits: Int, guardBits: Int, family: Family) -> ArithmeticPath {
        let path = cheapestPath(forBits: bits)
        switch family {
        case .mandelbrot, .julia:
            return path == .doubleDouble && bits - guardBits <= checkedDoubleSpacingBits ? .double : path
        default:
            return path
        }
    }

    /// Renders `location` at `settings` on the backend `settings.backend` names (opened once per
    /// process; `RenderSettings.gpuExact` picks a GPU's exact kernels). Under a backend that
    /// `fallsBackToCPU` (`auto`), a GPU that cannot be opened, or that fails mid-render (out of
    /// memory, say), costs a CPU render and a warning in the report.
    ///
    /// Throws `LocationError` for bad input, `RenderError` (`invalidSetting` before any work,
    /// `needsPerturbation` for views deeper than double-double reaches, `cancelled` when
    /// `control` cancels), and the backend's error (FathomGPU's `GPUError`) for a GPU that
    /// cannot be used where no fallback is allowed.
    public static func render(location: Location, settings: RenderSettings, control: RenderControl? = nil) throws
        -> RenderResult
    {
        var warning: String?
        let device = try settings.backend.open(settings.gpuExact, &warning)
        do {
            var result = try render(location: location, settings: settings, device: device, control: control)
            if let warning { result.report.warnings.append(warning) }
            return result
        } catch let error as any DeviceFailure where settings.backend.fallsBackToCPU && device != nil {
            var result = try render(location: location, settings: settings, device: nil, control: control)
            result.report.warnings.append("\(error); rendered on the CPU")
            return result
        }
    }

    /// `render(location:settings:control:)` for async code: on a thread of its own, cancelled
    /// with the calling Task (`CancellationError`); see `RenderControl.run(with:_:)`.
    public static func render(location: Location, settings: RenderSettings, control: RenderControl? = nil)
        async throws -> RenderResult
    {
        try await RenderControl.run(with: control) { control in
            try render(location: location, settings: settings, control: control)
        }
    }

    /// Renders `location` at `settings`, its passes on `device` where they have a device form
    /// (a GPU backend's launcher) and on the CPU otherwise (nil: all on the CPU).
    ///
    /// Throws `LocationError` for bad input, `RenderError.needsPerturbation` for views deeper
    /// than double-double reaches, `RenderError.cancelled` when `control` cancels.
    package static func render(
        location: Location, settings: RenderSettings, device: (any KernelLauncher)?,
        control: RenderControl? = nil
    ) throws -> RenderResult {
        let start = DispatchTime.now().uptimeNanoseconds
        let viewport = try Viewport(location: location, settings: settings)
        try settings.validate()
        let bits = requiredBits(viewport: viewport, guardBits: settings.guardBits)
        let path = settings.path ?? automaticPath(bits: bits, guardBits: settings.guardBits, family: location.family)
        let threads = settings.workerThreads
        let cpu = CPUTiles(threads: threads, order: settings.tileOrder)
        let executor: any PassExecutor = device.map { DeviceExecutor(launcher: $0, cpu: cpu) } ?? cpu
        let before = device?.counters
        var field = IterationField(
            width: settings.width, height: settings.height, maxIterations: location.maxIterations,
            rootCount: location.family.rootCount)
        var report = RenderReport(path: path, requiredBits: bits, threads: threads, seconds: 0, iterations: 0)
        switch (path, location.family) {
        case (.perturbation, .newton):
            // Forced (--path perturbation), or a view deeper than double-double carries.
            if settings.path == .perturbation { throw RenderError.noPerturbationFormula(family: "newton") }
            throw RenderError.needsPerturbation(requiredBits: bits, availableBits: ArithmeticPath.doubleDouble.bits)
        case (.perturbation, _):
            report.perturbation = try PerturbationRenderer.render(
                location: location, viewport: viewport, settings: settings,
                executor: executor, threads: threads, control: control, field: &field)
            if control?.isCancelled == true { throw RenderError.cancelled }
        default:
            // An orbit file given for a view that has no use for one: refused, never ignored.
            if settings.perturbation.loadReference != nil { throw RenderError.referenceNotUsed(path: path.rawValue) }
            report.doubleDoublePixels = try DirectRender(
                location: location, viewport: viewport, settings: settings, path: path,
                executor: executor, control: control
            ).run(into: &field)
        }
        report.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        report.iterations = field.iterationsRepresented
        if PhaseTrace.enabled { PhaseTrace.write(String(format: "render: %.1f ms in all\n", report.seconds * 1e3)) }
        if let device, let before {
            let after = device.counters
            report.backend = settings.backend
            report.device = device.deviceName
            report.gpuSeconds = after.seconds - before.seconds
            report.gpuPasses = after.passes - before.passes
            report.gpuUploadsSaved = after.residentHits - before.residentHits
        }
        control?.finish()
        return RenderResult(field: field, report: report)
    }
}
