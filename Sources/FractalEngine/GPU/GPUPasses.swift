import CFathomGPU
import Dispatch
import Foundation
import FractalNumerics

// The GPU side of the kernel seam: a perturbation pass is the same pure function of (reference
// orbit, BLA table, delta type, block of pixels) as `PerturbationKernel.run`, executed by the
// CUDA kernels (FathomKernels.h). The orbit, the tables and the pixels' dc go up as they are
// (their Swift layouts are checked against FathomKernelABI.h); each pixel comes back as an
// FKPixelOut, which the host finishes with the CPU kernel's own code (`escaped`: smooth value
// and precision estimate), so the IterationField and flags equal the CPU's when the device
// rounds like the CPU (--fmad=false).

/// Whether Swift lays out the types the kernels read as FathomKernelABI.h declares them.
enum GPULayout {
    static func matches<D: DeltaScalar>(_: D.Type) -> Bool {
        let scalar = MemoryLayout<D>.stride
        guard MemoryLayout<Complex<D>>.stride == 2 * scalar, MemoryLayout<Complex<D>>.offset(of: \Complex<D>.im) == scalar,
              MemoryLayout<FloatExp>.stride == MemoryLayout<FKFloatExp>.stride else { return false }
        if D.self == Double.self {
            return stepMatches(D.self, FKStepDouble.self, radius: \.radius, stretch: \.stretchExponent, inverse: \.inverseRadiusSquared)
        }
        return stepMatches(D.self, FKStepFloatExp.self, radius: \.radius, stretch: \.stretchExponent, inverse: \.inverseRadiusSquared)
    }

    /// `BLAStep<D>` against the C step `S`, field by field.
    static func stepMatches<D: DeltaScalar, S>(_: D.Type, _: S.Type, radius: PartialKeyPath<S>, stretch: PartialKeyPath<S>,
                                               inverse: PartialKeyPath<S>) -> Bool {
        typealias Step = BLAStep<D>
        return MemoryLayout<Step>.stride == MemoryLayout<S>.stride
            && MemoryLayout<Step>.offset(of: \Step.b) == 2 * MemoryLayout<D>.stride
            && MemoryLayout<Step>.offset(of: \Step.radius) == MemoryLayout<S>.offset(of: radius)
            && MemoryLayout<Step>.offset(of: \Step.stretchExponent) == MemoryLayout<S>.offset(of: stretch)
            && MemoryLayout<Step>.offset(of: \Step.inverseRadiusSquared) == MemoryLayout<S>.offset(of: inverse)
    }
}

extension GPUExecutor {
    /// Runs `kernel`'s pass (items 0 ..< count) on this backend. False when the backend does
    /// not run this kernel (extras tracking, double-double deltas, powers above 16): the
    /// caller runs it on the CPU.
    func perturb<F: PerturbationFormula, D: PerturbationDelta, T: PixelTracker>(
        _ kernel: PerturbationKernel<F, D, T>, count: Int, field: inout IterationField, control: RenderControl?,
        resident names: GPUResidency? = nil
    ) throws -> Bool {
        guard !T.isActive, count > 0 else { return count == 0 }
        let floatExp: Bool
        if D.self == Double.self { floatExp = false } else if D.self == FloatExp.self { floatExp = true } else { return false }
        guard kernel.formula.power <= Int(FK_MAX_POWER), GPULayout.matches(D.self) else { return false }
        passLock.lock()
        defer { passLock.unlock() }
        var trace = PhaseTrace("GPU pass, \(count) items")
        defer { trace.mark("finish"); trace.print() }

        // Up: orbits, tables (shared when the rebase orbit is the orbit itself), the pixels' dc.
        let orbit = try resident(names?.orbit, kernel.orbit)
        let rebaseOrbit = Self.sameStorage(kernel.orbit, kernel.rebaseOrbit) ? orbit : try resident(names?.rebaseOrbit, kernel.rebaseOrbit)
        var keep: [Buffer] = [orbit, rebaseOrbit]
        func upload(_ table: BLATable<D>?, _ name: String?) throws -> FKTable {
            guard let table, !table.steps.isEmpty else { return FKTable(steps: nil, radii: nil, levelStarts: nil, levels: 0) }
            let steps = try resident(name.map { $0 + " steps" }, table.steps), radii = try resident(name.map { $0 + " radii" }, table.radii)
            let starts = try resident(name.map { $0 + " levels" }, table.levelStarts)
            keep += [steps, radii, starts]
            return FKTable(steps: steps.pointer, radii: radii.pointer, levelStarts: starts.pointer.assumingMemoryBound(to: Int64.self),
                           levels: Int64(table.levelCount))
        }
        let table = try upload(kernel.bla, names?.table)
        let sameTable = kernel.bla != nil && kernel.rebaseBLA != nil && Self.sameStorage(kernel.bla!.steps, kernel.rebaseBLA!.steps)
        let rebaseTable = sameTable ? table : try upload(kernel.rebaseBLA, names?.rebaseTable)
        let deltas = try DeviceDeltas(kernel.grid, subset: kernel.subset, count: count, on: self)
        let (results, host) = try resultBuffers(bytes: Swift.min(count, launchItems) * MemoryLayout<FKPixelOut>.stride)
        trace.mark("up")

        var p = Self.parameters(kernel.formula, orbit: (orbit, kernel.orbit.count), rebaseOrbit: (rebaseOrbit, kernel.rebaseOrbit.count),
                                deltas: deltas, results: results, count: count, maxIterations: kernel.maxIterations,
                                mode: kernel.mode, tolerance: kernel.tolerance)
        p.table = table
        p.rebaseTable = rebaseTable
        let multibrot = kernel.formula is MultibrotPerturbation
        let name = "fathom_perturb_\(floatExp ? "floatexp" : "double")\(multibrot ? "_multibrot" : "")"
        // Each launch's results down, and finished on the host with the CPU kernel's code.
        let epsilon = kernel.bla?.epsilon ?? 0, grid = kernel.grid
        try launch(name, parameters: p, count: count, emulate: { pointer, begin, end in
            fg_emulate_perturb(pointer, floatExp ? 1 : 0, multibrot ? 1 : 0, Int64(begin), Int64(end))
        }, control: control, progressBase: kernel.subset == nil ? 0.1 : nil) { items in
            trace.mark("kernel")
            try results.download(host.pointer, bytes: items.count * MemoryLayout<FKPixelOut>.stride)
            trace.mark("down")
            Self.finish(host, items: items, subset: kernel.subset, field: &field, flags: kernel.flags) { i, out in
                kernel.escaped(n2: Int(out.n2), n: Int(out.n), r2: out.r2, dc: grid.delta(i), stretch2: out.stretch2,
                               stretchExponent: Int(out.stretchExponent), blaLoad: out.blaLoad, epsilon: epsilon)
            }
        }
        withExtendedLifetime((keep, deltas)) {}
        return true
    }

    /// Whether two arrays share their storage (the rebase orbit that is the orbit itself).
    static func sameStorage<T>(_ a: [T], _ b: [T]) -> Bool {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
    }

    /// The launch parameters every perturbation pass shares.
    static func parameters<F: PerturbationFormula>(
        _ formula: F, orbit: (Buffer, Int), rebaseOrbit: (Buffer, Int), deltas: DeviceDeltas, results: Buffer, count: Int,
        maxIterations: Int, mode: GlitchMode, tolerance: Double
    ) -> FKPerturbParams {
        var p = FKPerturbParams()
        p.orbit = orbit.0.pointer
        p.orbitCount = Int64(orbit.1)
        p.rebaseOrbit = rebaseOrbit.0.pointer
        p.rebaseCount = Int64(rebaseOrbit.1)
        p.dc = deltas.list?.pointer
        p.columns = deltas.columns?.pointer
        p.rows = deltas.rows?.pointer
        p.width = Int64(deltas.width)
        p.out = results.mutablePointer.assumingMemoryBound(to: FKPixelOut.self)
        p.count = Int64(count)
        p.maxIterations = Int64(maxIterations)
        p.power = Int32(formula.power)
        p.addsDC = formula.addsDC ? 1 : 0
        p.mode = mode == .detect ? Int32(FK_DETECT) : Int32(FK_REBASE)
        p.tolerance = tolerance
        if let m = formula as? MultibrotPerturbation {
            withUnsafeMutableBytes(of: &p.binomials) { raw in
                let b = raw.bindMemory(to: Double.self)
                for (k, value) in m.binomials.enumerated() { b[k] = value }
            }
        }
        return p
    }

    /// Writes the result and flags of each of `items` from the `FKPixelOut`s downloaded to
    /// `host` (item `items.lowerBound` first); `escaped` gives an escaped item's result and
    /// whether it is at risk (pixel index, outcome).
    static func finish(_ host: HostBuffer, items: Range<Int>, subset: [Int]?, field: inout IterationField, flags: PixelFlags,
                       escaped: @escaping @Sendable (Int, FKPixelOut) -> (PixelResult, Bool)) {
        let outcomes = SendablePointer(host.pointer.assumingMemoryBound(to: FKPixelOut.self))
        let first = items.lowerBound
        field.withWriter { writer in
            Parallel.forEachChunk(items.count, threads: TileScheduler.availableThreads) { range in
                for k in range {
                    let j = first + k
                    let i = subset?[j] ?? j
                    let out = outcomes.pointer[k]
                    var work = PixelWork()
                    work.steps = Int(out.steps)
                    work.blaSteps = Int(out.blaSteps)
                    var result = PixelResult.bounded, ratio = Double.nan, sensitive = false
                    switch Int(out.kind) {
                    case Int(FK_ESCAPED): (result, sensitive) = escaped(i, out)
                    case Int(FK_BOUNDED): ratio = out.ratio
                    default: result = PixelResult(n2: out.n2, nBig: 0, smooth: .nan)
                    }
                    writer.write(i, result)
                    flags.record(i, ratio: ratio, sensitive: sensitive, work: work)
                }
            }
        }
    }
}

/// A pass's pixel deltas on the device: for a whole image without rotation the columns' and
/// rows' values (the kernel combines them), else one dc per item.
struct DeviceDeltas {
    let list: GPUExecutor.Buffer?
    let columns: GPUExecutor.Buffer?
    let rows: GPUExecutor.Buffer?
    let width: Int

    init<E: PerturbationDelta>(_ grid: DeltaGrid<E>, subset: [Int]?, count: Int, on executor: GPUExecutor) throws {
        width = grid.width
        if subset == nil && !grid.rotated {
            list = nil
            columns = try executor.buffer(grid.columns)
            rows = try executor.buffer(grid.rows)
        } else {
            let deltas = [Complex<E>](unsafeUninitializedCapacity: count) { d, initialized in
                let out = SendablePointer(d.baseAddress!)
                Parallel.forEachChunk(count, threads: TileScheduler.availableThreads) { range in
                    for j in range { (out.pointer + j).initialize(to: grid.delta(subset?[j] ?? j)) }
                }
                initialized = count
            }
            list = try executor.buffer(deltas)
            columns = nil
            rows = nil
        }
    }
}

extension GPUExecutor {
    /// Direct Double escape time of every pixel (z^p + c; Julia when `juliaC` is set), as
    /// `iterateEscape` in Double computes it. With `check` (z^2 + c), also the lanes' rounding
    /// check: the pixels whose result Double may not carry come back marked, for the caller's
    /// double-double pass. Nil when this backend does not run the view (rotation).
    func direct(grid: PixelGrid, juliaC: Complex<Double>?, power: Int, maxIterations: Int, check: Bool,
                field: inout IterationField, control: RenderControl?) throws -> [UInt8]? {
        guard !grid.rotated, power <= Int(FK_MAX_POWER) else { return nil }
        passLock.lock()
        defer { passLock.unlock() }
        let count = field.pixelCount
        let columns = try buffer(grid.columnRe.map(\.doubleValue))
        let rows = try buffer(grid.rowIm.map(\.doubleValue))
        let (results, host) = try resultBuffers(bytes: Swift.min(count, launchItems) * MemoryLayout<FKDirectOut>.stride)
        var p = FKDirectParams()
        p.columns = columns.pointer.assumingMemoryBound(to: Double.self)
        p.rows = rows.pointer.assumingMemoryBound(to: Double.self)
        p.out = results.mutablePointer.assumingMemoryBound(to: FKDirectOut.self)
        p.width = Int64(field.width)
        p.count = Int64(count)
        p.maxIterations = Int64(maxIterations)
        p.power = Int32(power)
        p.julia = juliaC == nil ? 0 : 1
        p.juliaRe = juliaC?.re ?? 0
        p.juliaIm = juliaC?.im ?? 0
        var sensitive = [UInt8](repeating: 0, count: check ? count : 0)
        try sensitive.withUnsafeMutableBufferPointer { s in
            let marks = check ? SendablePointer(s.baseAddress!) : nil
            let outcomes = SendablePointer(host.pointer.assumingMemoryBound(to: FKDirectOut.self))
            try launch("fathom_direct_double", parameters: p, count: count, emulate: { pointer, begin, end in
                fg_emulate_direct(pointer, Int64(begin), Int64(end))
            }, control: control, progressBase: 0) { items in
                try results.download(host.pointer, bytes: items.count * MemoryLayout<FKDirectOut>.stride)
                let first = items.lowerBound
                field.withWriter { writer in
                    Parallel.forEachChunk(items.count, threads: TileScheduler.availableThreads) { range in
                        for k in range {
                            let i = first + k
                            let out = outcomes.pointer[k]
                            let escaped = out.nBig > 0
                            writer.write(i, PixelResult(n2: out.n2, nBig: out.nBig,
                                                        smooth: escaped ? Escape.smooth(nBig: Int(out.nBig), lengthSquared: out.r2, power: power) : .nan))
                            if let marks {
                                // RoundingCheck.finish: u sqrt(e2) as the error of z.
                                let holds = PrecisionEstimate.smoothHolds(
                                    n: 1, lengthSquared: escaped ? out.r2 : Escape.radiusSquared2, power: 2, dc: Complex(1.0, 0),
                                    stretch2: out.e2, stretchExponent: Int(out.exponent), deltaBits: 53)
                                marks.pointer[i] = holds ? 0 : 1
                            }
                        }
                    }
                }
            }
        }
        withExtendedLifetime((columns, rows)) {}
        return sensitive
    }
}

/// Names of a pass's orbits and BLA tables by their content (family, reference point,
/// precision, length; the table's dc bound and epsilon): a GPU backend keeps the device copies
/// of the last few under these names, so later passes and the frames of a sequence that use
/// the same orbit and table do not upload them again.
struct GPUResidency {
    var orbit: String
    var rebaseOrbit: String
    var table: String?
    var rebaseTable: String?
}

/// Phase times of a GPU pass on stderr when FATHOM_TRACE is set (Documentation/GPU.md).
struct PhaseTrace {
    static let enabled = getenv("FATHOM_TRACE") != nil
    let title: String
    var last = DispatchTime.now().uptimeNanoseconds
    var phases: [(String, Double)] = []

    init(_ title: String) { self.title = title }

    mutating func mark(_ phase: String) {
        guard PhaseTrace.enabled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        phases.append((phase, Double(now - last) / 1e6))
        last = now
    }

    func print() {
        guard PhaseTrace.enabled else { return }
        let line = title + ": " + phases.map { "\($0.0) " + String(format: "%.1f ms", $0.1) }.joined(separator: ", ") + "\n"
        PhaseTrace.write(line)
    }

    /// `line` on stderr.
    static func write(_ line: String) { FileHandle.standardError.write(Data(line.utf8)) }
}
