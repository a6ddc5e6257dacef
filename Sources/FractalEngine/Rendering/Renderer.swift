import ArbitraryPrecision
import Foundation
import FractalNumerics

/// How the pixels of a render are iterated (Documentation/Design.md section 4).
public enum ArithmeticPath: String, Sendable, CaseIterable {
    case double
    case doubleDouble = "double-double"
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
    public var width: Int
    public var height: Int
    /// Worker threads; 0 means one per core.
    public var threads: Int
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
    /// Where the per-pixel kernels run (Documentation/GPU.md). The CPU by default in the
    /// library; the CLI's default is `auto`.
    public var backend: ComputeBackend = .cpu
    /// CUDA kernels compiled with --fmad=false: every operation rounds as on the CPU, and the
    /// iteration data equal the CPU's (about 7% slower).
    public var gpuExact = false
    /// The order in which workers take the tiles of every CPU pass: for tests, which show that
    /// the field does not depend on it (`TileOrder`).
    public var tileOrder: TileOrder = .ascending

    public init(width: Int, height: Int, threads: Int = 0, guardBits: Int = RenderSettings.defaultGuardBits, tilePixels: Int = 2048,
                path: ArithmeticPath? = nil, perturbation: PerturbationSettings = PerturbationSettings()) {
        self.width = width
        self.height = height
        self.threads = threads
        self.guardBits = guardBits
        self.tilePixels = tilePixels
        self.path = path
        self.perturbation = perturbation
    }
}

/// What a render did.
public struct RenderReport: Sendable {
    public var path: ArithmeticPath
    /// Bits the view needs: log2(coordinate scale / spacing) + guard bits.
    public var requiredBits: Int
    public var threads: Int
    public var seconds: Double
    public var iterations: Int
    /// Double path: pixels the rounding check sent to double-double.
    public var doubleDoublePixels: Int = 0
    /// Set when the path is perturbation.
    public var perturbation: PerturbationReport?
    /// Where the kernels ran: "cpu", or the GPU backend's device.
    public var backend = "cpu"
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
    public var field: IterationField
    public var report: RenderReport
}

/// Renders locations into iteration fields.
public enum Renderer {
    /// The bits a view needs: log2(max(2, |center|) / s) rounded up, plus `guardBits`.
    public static func requiredBits(viewport: Viewport, guardBits: Int) -> Int {
        let scale = max(2, viewport.centerDD.re.hi.magnitude + viewport.centerDD.im.hi.magnitude)
        // Never below zero (a view wider than its center's scale needs no bits below it).
        return max(0, Int((Math.log2(scale) - viewport.log2Spacing).rounded(.up))) + guardBits
    }

    /// The cheapest path that carries `bits`.
    public static func cheapestPath(forBits bits: Int) -> ArithmeticPath {
        if bits <= ArithmeticPath.double.bits { return .double }
        if bits <= ArithmeticPath.doubleDouble.bits { return .doubleDouble }
        return .perturbation
    }

    /// The spacing (in bits below the coordinates' scale) down to which z^2 + c takes checked
    /// Double lanes before double-double: the rounding check sends the pixels Double cannot
    /// carry to double-double, and past this few would be left to Double.
    public static let checkedDoubleSpacingBits = 33

    /// The path a render takes by itself: the cheapest that carries `bits`, except that
    /// Mandelbrot and Julia views double-double would take go to checked Double lanes while
    /// their spacing needs at most `checkedDoubleSpacingBits`.
    public static func automaticPath(bits: Int, guardBits: Int, family: Family) -> ArithmeticPath {
        let path = cheapestPath(forBits: bits)
        switch family {
        case .mandelbrot, .julia:
            return path == .doubleDouble && bits - guardBits <= checkedDoubleSpacingBits ? .double : path
        default:
            return path
        }
    }

    /// Renders `location` at `settings`.
    ///
    /// Throws `LocationError` for bad input, `RenderError.needsPerturbation` for views deeper
    /// than double-double reaches, `RenderError.cancelled` when `control` cancels.
    public static func render(location: Location, settings: RenderSettings, control: RenderControl? = nil) throws -> RenderResult {
        var warning: String?
        let gpu = try GPUExecutor.resolve(settings.backend, exact: settings.gpuExact, warning: &warning)
        do {
            var result = try render(location: location, settings: settings, control: control, gpu: gpu)
            if let warning { result.report.warnings.append(warning) }
            return result
        } catch let error as GPUError where settings.backend == .auto && gpu != nil {
            // Under auto a GPU that fails mid-render (out of memory, say) costs a CPU render.
            var result = try render(location: location, settings: settings, control: control, gpu: nil)
            result.report.warnings.append("\(error); rendered on the CPU")
            return result
        }
    }

    /// `render` on `gpu` (nil: the CPU).
    static func render(location: Location, settings: RenderSettings, control: RenderControl?, gpu: GPUExecutor?) throws -> RenderResult {
        let start = DispatchTime.now().uptimeNanoseconds
        let viewport = try Viewport(location: location, width: settings.width, height: settings.height)
        let bits = requiredBits(viewport: viewport, guardBits: settings.guardBits)
        let path = settings.path ?? automaticPath(bits: bits, guardBits: settings.guardBits, family: location.family)
        let threads = settings.threads > 0 ? settings.threads : TileScheduler.availableThreads
        let gpuStart = gpu?.kernelSeconds ?? 0, gpuPassesBefore = gpu?.passes ?? 0, hitsBefore = gpu?.residentHits ?? 0
        let grid = PixelGrid(viewport: viewport)
        let limit = location.maxIterations
        var field = IterationField(width: settings.width, height: settings.height, maxIterations: limit, hasRoots: {
            if case .newton = location.family { return true } else { return false }
        }())

        func juliaC() throws -> Complex<DoubleDouble> {
            try location.family.juliaParameter(precision: viewport.precision)!.doubleDoubleValue
        }

        func run<K: TileKernel>(_ kernel: K, control: RenderControl? = control) {
            if let only = settings.onlyPixels {
                fill(&field, kernel: SubsetKernel(inner: kernel, subset: only), count: only.count, tilePixels: 16, threads: threads, control: control,
                     order: settings.tileOrder)
            } else {
                fill(&field, kernel: kernel, tilePixels: settings.tilePixels, threads: threads, control: control, order: settings.tileOrder)
            }
        }

        // Double lanes with the rounding check, then the pixels it marks in double-double
        // lanes; returns how many it marked.
        func checkedDouble(juliaC: Complex<Double>?, ddJuliaC: Complex<DoubleDouble>?) throws -> Int {
            if let gpu, settings.onlyPixels == nil,
               var sensitive = try gpu.direct(grid: grid, juliaC: juliaC, power: 2, maxIterations: limit, check: settings.checkRounding,
                                              field: &field, control: control) {
                if !settings.checkRounding { sensitive = [] }
                return doubleDoublePass(sensitive.indices.filter { sensitive[$0] != 0 }, ddJuliaC: ddJuliaC)
            }
            guard settings.checkRounding else {
                run(QuadraticLaneKernel<DoubleLanes<SIMD8<Double>>>(grid: grid, juliaC: juliaC, maxIterations: limit))
                return 0
            }
            var sensitive = [UInt8](repeating: 0, count: field.pixelCount)
            sensitive.withUnsafeMutableBufferPointer { flags in
                let lanes = QuadraticLaneKernel<DoubleLanes<SIMD8<Double>>>(grid: grid, juliaC: juliaC, maxIterations: limit)
                run(CheckedDoubleLaneKernel(lanes: lanes, sensitive: SendablePointer(flags.baseAddress!)))
            }
            var marked = sensitive.indices.filter { sensitive[$0] != 0 }
            if let only = settings.onlyPixels {
                let wanted = Set(only)
                marked = marked.filter { wanted.contains($0) }
            }
            return doubleDoublePass(marked, ddJuliaC: ddJuliaC)
        }
        // The pixels the rounding check marked, again in double-double lanes.
        func doubleDoublePass(_ marked: [Int], ddJuliaC: Complex<DoubleDouble>?) -> Int {
            guard !marked.isEmpty, control?.isCancelled != true else { return 0 }
            let wide = QuadraticLaneKernel<DoubleDoubleLanes<SIMD8<Double>>>(grid: grid, juliaC: ddJuliaC, maxIterations: limit, subset: marked)
            fill(&field, kernel: wide, count: marked.count, tilePixels: 256, threads: threads, control: nil, order: settings.tileOrder)
            return marked.count
        }
        // Direct Double without the rounding check, on the GPU when there is one.
        func plainDouble(power: Int, juliaC: Complex<Double>?) throws -> Bool {
            guard let gpu, settings.onlyPixels == nil else { return false }
            return try gpu.direct(grid: grid, juliaC: juliaC, power: power, maxIterations: limit, check: false,
                                  field: &field, control: control) != nil
        }

        var recheckedPixels = 0
        var perturbationReport: PerturbationReport?
        switch (path, location.family) {
        case (.perturbation, .newton):
            // Forced (--path perturbation), or a view deeper than double-double carries.
            if settings.path == .perturbation { throw RenderError.noPerturbationFormula(family: "newton") }
            throw RenderError.needsPerturbation(requiredBits: bits, availableBits: ArithmeticPath.doubleDouble.bits)
        case (.perturbation, _):
            perturbationReport = try PerturbationRenderer.render(
                location: location, viewport: viewport, settings: settings, perturbation: settings.perturbation,
                threads: threads, control: control, gpu: gpu, field: &field)
        case (.double, .mandelbrot):
            recheckedPixels = try checkedDouble(juliaC: nil, ddJuliaC: nil)
        case (.double, .julia):
            let c = try juliaC()
            let cd = Complex(c.re.doubleValue, c.im.doubleValue)
            if cd.re * cd.re + cd.im * cd.im <= 4 {
                recheckedPixels = try checkedDouble(juliaC: cd, ddJuliaC: c)
            } else if try !plainDouble(power: 2, juliaC: cd) {
                run(ScalarEscapeKernel<QuadraticFormula, Double>(formula: QuadraticFormula(), grid: grid, juliaC: cd, maxIterations: limit))
            }
        case (.double, .multibrot(let p)):
            if try plainDouble(power: p, juliaC: nil) { break }
            run(ScalarEscapeKernel<MultibrotFormula, Double>(formula: MultibrotFormula(power: p), grid: grid, juliaC: nil, maxIterations: limit))
        case (.double, .newton(let poly)):
            run(NewtonKernel<Double>(newton: NewtonIteration(poly), grid: grid, maxIterations: limit))
        case (.doubleDouble, .mandelbrot):
            run(QuadraticLaneKernel<DoubleDoubleLanes<SIMD8<Double>>>(grid: grid, juliaC: nil, maxIterations: limit))
        case (.doubleDouble, .julia):
            let c = try juliaC()
            if c.re.hi * c.re.hi + c.im.hi * c.im.hi <= 4 {
                run(QuadraticLaneKernel<DoubleDoubleLanes<SIMD8<Double>>>(grid: grid, juliaC: c, maxIterations: limit))
            } else {
                run(ScalarEscapeKernel<QuadraticFormula, DoubleDouble>(formula: QuadraticFormula(), grid: grid, juliaC: c, maxIterations: limit))
            }
        case (.doubleDouble, .multibrot(let p)):
            run(ScalarEscapeKernel<MultibrotFormula, DoubleDouble>(formula: MultibrotFormula(power: p), grid: grid, juliaC: nil, maxIterations: limit))
        case (.doubleDouble, .newton(let poly)):
            run(NewtonKernel<DoubleDouble>(newton: NewtonIteration(poly), grid: grid, maxIterations: limit))
        }
        if control?.isCancelled == true { throw RenderError.cancelled }
        if !settings.extras.isEmpty && path != .perturbation {
            // Direct paths: each pixel iterated once more with the tracker, in the path's type.
            var extras = ExtrasField(count: field.pixelCount, request: settings.extras)
            let log2Spacing = viewport.log2Spacing
            func extrasPass<F: EscapeTimeFormula, T: DirectScalar>(_ formula: F, _: T.Type, juliaC: Complex<T>?) {
                extras.withWriter { writer in
                    run(ScalarExtrasKernel<F, T>(formula: formula, grid: grid, juliaC: juliaC, maxIterations: limit,
                                                 trap: settings.extras.trap, log2Spacing: log2Spacing, writer: writer), control: nil)
                }
            }
            switch (path, location.family) {
            case (.double, .mandelbrot): extrasPass(QuadraticFormula(), Double.self, juliaC: nil)
            case (.double, .multibrot(let p)): extrasPass(MultibrotFormula(power: p), Double.self, juliaC: nil)
            case (.double, .julia):
                let c = try juliaC()
                extrasPass(QuadraticFormula(), Double.self, juliaC: Complex(c.re.doubleValue, c.im.doubleValue))
            case (.doubleDouble, .mandelbrot): extrasPass(QuadraticFormula(), DoubleDouble.self, juliaC: nil)
            case (.doubleDouble, .multibrot(let p)): extrasPass(MultibrotFormula(power: p), DoubleDouble.self, juliaC: nil)
            case (.doubleDouble, .julia): extrasPass(QuadraticFormula(), DoubleDouble.self, juliaC: try juliaC())
            default: break
            }
            if case .newton = location.family {} else { field.extras = extras }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if PhaseTrace.enabled { PhaseTrace.write(String(format: "render: %.1f ms in all\n", seconds * 1e3)) }
        var report = RenderReport(path: path, requiredBits: bits, threads: threads, seconds: seconds,
                                  iterations: field.iterationsRepresented, doubleDoublePixels: recheckedPixels,
                                  perturbation: perturbationReport)
        if let gpu {
            report.backend = gpu.deviceName
            report.gpuSeconds = gpu.kernelSeconds - gpuStart
            report.gpuPasses = gpu.passes - gpuPassesBefore
            report.gpuUploadsSaved = gpu.residentHits - hitsBefore
        }
        return RenderResult(field: field, report: report)
    }

    /// Runs `kernel` over `count` items (the field's pixels unless the kernel maps a subset)
    /// in tiles on `threads` threads, taken in `order`; progress runs from `progressBase` to 1.
    static func fill<K: TileKernel>(_ field: inout IterationField, kernel: K, count: Int? = nil, tilePixels: Int, threads: Int,
                                    control: RenderControl?, progressBase: Double = 0, order: TileOrder = .ascending) {
        let count = count ?? field.pixelCount
        let tileSize = max(1, tilePixels)
        let tiles = (count + tileSize - 1) / tileSize
        field.withWriter { writer in
            TileScheduler.run(
                tiles: tiles, threads: threads, control: control,
                tileDone: { tile in (1 - progressBase) * Double(min(tileSize, count - tile * tileSize)) / Double(count) },
                progressBase: progressBase, order: order,
                body: { tile in
                    kernel.run(tile * tileSize..<min(count, (tile + 1) * tileSize), writer)
                })
        }
    }
}
