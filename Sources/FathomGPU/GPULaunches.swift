internal import CFathomGPU
import Foundation
import FractalEngine

// The GPU side of the executor seam: a `DeviceLaunch` from the engine becomes the CUDA kernels'
// parameters (FathomKernelABI.h). Its arrays go up as they are, once their layouts are checked
// against the ABI; the outcomes come back per launch, and the engine finishes them with the CPU
// kernel's own code, so the field and flags equal the CPU's when the device rounds like the
// CPU (--fmad=false).

extension GPUExecutor {
    func run(
        _ launch: DeviceLaunch, threads: Int, control: RenderControl?, progressBase: Double,
        completed: (Range<Int>, UnsafeRawBufferPointer) throws -> Void
    ) throws -> Bool {
        switch launch {
        case .perturbation(let p):
            try perturb(p, threads: threads, control: control, progressBase: progressBase, completed: completed)
        case .direct(let d):
            try direct(d, threads: threads, control: control, progressBase: progressBase, completed: completed)
        }
    }

    /// A perturbation pass; false when the kernels do not take it (a power above theirs, or
    /// layouts that differ from the ABI's).
    private func perturb(
        _ launch: PerturbationLaunch, threads: Int, control: RenderControl?, progressBase: Double,
        completed: (Range<Int>, UnsafeRawBufferPointer) throws -> Void
    ) throws -> Bool {
        guard launch.power <= Int(FK_MAX_POWER), ABI.matches(launch.delta) else { return false }
        // The lanes, a form of the CPU, take passes of z^2 + c over a decoded orbit (every delta
        // type); the CPU's own kernel runs the others (not the emulation).
        if lanes > 0
            && !(launch.binomials == nil && launch.stream == nil
                && launch.hostCopyBytes <= GPUExecutor.hostCopyBytes)
        {
            return false
        }
        passLock.lock()
        defer { passLock.unlock() }
        var trace = PhaseTrace("GPU pass, \(launch.count) items")
        defer { trace.mark("finish"); trace.print() }

        // Up: orbits and tables (kept on the device under their content's names), the items' dc.
        // The orbit decoded, or streamed (its parts; no rebase orbit of its own).
        let orbit = try launch.orbit.map(resident)
        let rebaseOrbit = try launch.rebaseOrbit.map(resident) ?? orbit
        var keep: [Buffer] = [orbit, rebaseOrbit].compactMap { $0 }
        var stream = FKStream()
        if let s = launch.stream {
            func up(_ array: LaunchArray) throws -> Buffer {
                let b = try resident(array)
                keep.append(b)
                return b
            }
            stream.bytes = UnsafePointer(try up(s.bytes).pointer.assumingMemoryBound(to: UInt8.self))
            stream.nibbleCount = Int64(s.nibbleCount)
            stream.keys = UnsafePointer(try up(s.keys).pointer.assumingMemoryBound(to: Double.self))
            stream.keyNibbles = UnsafePointer(try up(s.keyNibbles).pointer.assumingMemoryBound(to: Int64.self))
            stream.tinySteps = UnsafePointer(try up(s.tinySteps).pointer.assumingMemoryBound(to: Int64.self))
            stream.tinyValues = UnsafeRawPointer(try up(s.tinyValues).pointer)
            stream.tinyCount = Int64(s.tinySteps.count)
            stream.c = (s.c[0], s.c[1], s.c[2], s.c[3])
            stream.power = Int32(s.power)
            stream.lowWords = s.lowWords ? 1 : 0
            stream.wide = s.wide ? 1 : 0
        }
        func upload(_ table: PerturbationLaunch.Table?) throws -> FKTable {
            var t = FKTable(
                steps: nil, radii: nil, levelStarts: nil, levels: 0, la: nil, chainAt: nil, laLoadScale: 0)
            guard let table else { return t }
            func up(_ array: LaunchArray?) throws -> Buffer? {
                guard let array else { return nil }
                let b = try resident(array)
                keep.append(b)
                return b
            }
            if let steps = try up(table.steps), let radii = try up(table.radii),
                let starts = try up(table.levelStarts)
            {
                t.steps = UnsafeRawPointer(steps.pointer)
                t.radii = UnsafeRawPointer(radii.pointer)
                t.levelStarts = UnsafePointer(starts.pointer.assumingMemoryBound(to: Int64.self))
                t.levels = Int64(table.levels)
            }
            if let entries = try up(table.laEntries), let chains = try up(table.chainAt) {
                t.la = UnsafeRawPointer(entries.pointer)
                t.chainAt = UnsafePointer(chains.pointer.assumingMemoryBound(to: Int32.self))
                t.laLoadScale = table.laLoadScale
            }
            return t
        }
        let table = try upload(launch.table)
        let rebaseTable = launch.rebaseSharesTable ? table : try upload(launch.rebaseTable)
        var p = FKPerturbParams()
        switch launch.deltas {
        case .grid(let columns, let rows, let width):
            let c = try buffer(columns), r = try buffer(rows)
            keep += [c, r]
            p.columns = c.pointer
            p.rows = r.pointer
            p.width = Int64(width)
        case .list(let deltas):
            let d = try buffer(deltas)
            keep.append(d)
            p.dc = d.pointer
        }
        let (results, host) = try resultBuffers(
            bytes: Swift.min(launch.count, launchItems) * MemoryLayout<FKPixelOut>.stride)
        trace.mark("up")

        p.orbit = orbit.map { UnsafeRawPointer($0.pointer) }
        p.orbitCount = Int64(launch.orbitCount)
        p.rebaseOrbit = rebaseOrbit.map { UnsafeRawPointer($0.pointer) }
        p.rebaseCount = Int64(launch.rebaseOrbit?.count ?? launch.orbitCount)
        p.stream = stream
        p.table = table
        p.rebaseTable = rebaseTable
        p.out = results.mutablePointer.assumingMemoryBound(to: FKPixelOut.self)
        p.count = Int64(launch.count)
        p.maxIterations = Int64(launch.maxIterations)
        p.power = Int32(launch.power)
        p.addsDC = launch.addsDC ? 1 : 0
        p.mode = launch.detect ? Int32(FK_DETECT) : Int32(FK_REBASE)
        p.tolerance = launch.tolerance
        p.variance = launch.variance ? 1 : 0
        p.epsilon = launch.epsilon
        if let binomials = launch.binomials {
            withUnsafeMutableBytes(of: &p.binomials) { raw in
                let b = raw.bindMemory(to: Double.self)
                for (k, value) in binomials.enumerated() { b[k] = value }
            }
        }
        let delta = launch.delta, multibrot = launch.binomials != nil
        let name = "fathom_perturb_\(delta.kernelName)\(multibrot ? "_multibrot" : "")"
        // The lane form (it takes every pass that reaches here; were it to decline one, the
        // emulation gives the same records), else the emulation.
        let lanes = Int32(self.lanes)
        try self.launch(
            name, parameters: p, count: launch.count,
            emulate: { pointer, begin, end in
                let params = pointer.assumingMemoryBound(to: FKPerturbParams.self)
                if lanes > 0 && fg_lanes_perturb(params, delta.rawValue, lanes, Int64(begin), Int64(end)) != 0 {
                    return
                }
                fg_emulate_perturb(params, delta.rawValue, multibrot ? 1 : 0, Int64(begin), Int64(end))
            }, threads: threads, control: control, progressBase: progressBase
        ) { items in
            trace.mark("kernel")
            let bytes = items.count * MemoryLayout<FKPixelOut>.stride
            try results.download(host.pointer, bytes: bytes)
            trace.mark("down")
            try completed(items, UnsafeRawBufferPointer(start: host.pointer, count: bytes))
        }
        withExtendedLifetime(keep) {}
        return true
    }

    /// Direct Double escape time of every pixel; false for powers above the kernels'.
    private func direct(
        _ launch: DirectLaunch, threads: Int, control: RenderControl?, progressBase: Double,
        completed: (Range<Int>, UnsafeRawBufferPointer) throws -> Void
    ) throws -> Bool {
        guard launch.power <= Int(FK_MAX_POWER), ABI.directMatches else { return false }
        passLock.lock()
        defer { passLock.unlock() }
        let columns = try buffer(launch.columns), rows = try buffer(launch.rows)
        let (results, host) = try resultBuffers(
            bytes: Swift.min(launch.count, launchItems) * MemoryLayout<FKDirectOut>.stride)
        var p = FKDirectParams()
        p.columns = columns.pointer.assumingMemoryBound(to: Double.self)
        p.rows = rows.pointer.assumingMemoryBound(to: Double.self)
        p.out = results.mutablePointer.assumingMemoryBound(to: FKDirectOut.self)
        p.width = Int64(launch.width)
        p.count = Int64(launch.count)
        p.maxIterations = Int64(launch.maxIterations)
        p.power = Int32(launch.power)
        p.julia = launch.juliaC == nil ? 0 : 1
        p.juliaRe = launch.juliaC?.re ?? 0
        p.juliaIm = launch.juliaC?.im ?? 0
        try self.launch(
            "fathom_direct_double", parameters: p, count: launch.count,
            emulate: { pointer, begin, end in
                fg_emulate_direct(pointer.assumingMemoryBound(to: FKDirectParams.self), Int64(begin), Int64(end))
            }, threads: threads, control: control, progressBase: progressBase
        ) { items in
            let bytes = items.count * MemoryLayout<FKDirectOut>.stride
            try results.download(host.pointer, bytes: bytes)
            try completed(items, UnsafeRawBufferPointer(start: host.pointer, count: bytes))
        }
        withExtendedLifetime((columns, rows)) {}
        return true
    }
}

/// Whether the engine lays out what a launch carries as FathomKernelABI.h declares it: the
/// delta type's Complex and BLA step, and the outcome records.
enum ABI {
    static func matches(_ delta: PerturbationLaunch.Delta) -> Bool {
        /// An ABI record's stride and the offsets of `fields`, as `PerturbationLaunch.stepLayout`
        /// (b (br), radius, stretchExponent, inverseRadiusSquared) and `laEntryLayout` give the
        /// engine's.
        func layout<S>(_: S.Type, _ fields: PartialKeyPath<S>...) -> [Int] {
            [MemoryLayout<S>.stride] + fields.map { MemoryLayout<S>.offset(of: $0)! }
        }
        let scalar: Int, step: [Int], la: [Int]
        switch delta {
        case .double:
            scalar = MemoryLayout<Double>.stride
            step = layout(FKStepDouble.self, \.br, \.radius, \.stretchExponent, \.inverseRadiusSquared)
            la = layout(
                FKLAEntryDouble.self, \.ccr, \.threshold, \.dcThreshold, \.inverseThreshold, \.inverseDCThreshold,
                \.stretchSignificand, \.ccSignificand, \.length, \.chainEnd)
        case .floatExp:
            scalar = MemoryLayout<FKFloatExp>.stride
            step = layout(FKStepFloatExp.self, \.br, \.radius, \.stretchExponent, \.inverseRadiusSquared)
            la = layout(
                FKLAEntryFloatExp.self, \.ccr, \.threshold, \.dcThreshold, \.inverseThreshold, \.inverseDCThreshold,
                \.stretchSignificand, \.ccSignificand, \.length, \.chainEnd)
        case .doubleDouble:
            scalar = MemoryLayout<FKDoubleDouble>.stride
            step = layout(FKStepDoubleDouble.self, \.br, \.radius, \.stretchExponent, \.inverseRadiusSquared)
            la = layout(
                FKLAEntryDoubleDouble.self, \.ccr, \.threshold, \.dcThreshold, \.inverseThreshold, \.inverseDCThreshold,
                \.stretchSignificand, \.ccSignificand, \.length, \.chainEnd)
        case .doubleDoubleExp:
            scalar = MemoryLayout<FKDoubleDoubleExp>.stride
            step = layout(FKStepDoubleDoubleExp.self, \.br, \.radius, \.stretchExponent, \.inverseRadiusSquared)
            la = layout(
                FKLAEntryDoubleDoubleExp.self, \.ccr, \.threshold, \.dcThreshold, \.inverseThreshold,
                \.inverseDCThreshold,
                \.stretchSignificand, \.ccSignificand, \.length, \.chainEnd)
        }
        return PerturbationLaunch.complexLayout(delta) == [2 * scalar, scalar]
            && PerturbationLaunch.stepLayout(delta) == step && PerturbationLaunch.laEntryLayout(delta) == la
            && perturbationOutcomeMatches && delta.rawValue == deltaConstant(delta)
            && PerturbationLaunch.scalarLayouts == [
                MemoryLayout<CInt>.stride, MemoryLayout<Int64>.stride, MemoryLayout<FKFloatExp>.offset(of: \.e)!,
                MemoryLayout<FKDoubleDouble>.offset(of: \.lo)!, MemoryLayout<FKDoubleDoubleExp>.offset(of: \.e)!,
            ]
    }

    /// The ABI's FK_DELTA_ constant of `delta`: what the emulation switches on.
    static func deltaConstant(_ delta: PerturbationLaunch.Delta) -> Int32 {
        switch delta {
        case .double: Int32(FK_DELTA_DOUBLE)
        case .floatExp: Int32(FK_DELTA_FLOATEXP)
        case .doubleDouble: Int32(FK_DELTA_DOUBLEDOUBLE)
        case .doubleDoubleExp: Int32(FK_DELTA_DOUBLEDOUBLEEXP)
        }
    }

    static let perturbationOutcomeMatches: Bool = {
        typealias O = PerturbationOutcome
        typealias C = FKPixelOut
        return MemoryLayout<O>.stride == MemoryLayout<C>.stride
            && MemoryLayout<O>.offset(of: \.kind) == MemoryLayout<C>.offset(of: \.kind)
            && MemoryLayout<O>.offset(of: \.n2) == MemoryLayout<C>.offset(of: \.n2)
            && MemoryLayout<O>.offset(of: \.n) == MemoryLayout<C>.offset(of: \.n)
            && MemoryLayout<O>.offset(of: \.steps) == MemoryLayout<C>.offset(of: \.steps)
            && MemoryLayout<O>.offset(of: \.approximationSteps) == MemoryLayout<C>.offset(of: \.approximationSteps)
            && MemoryLayout<O>.offset(of: \.r2) == MemoryLayout<C>.offset(of: \.r2)
            && MemoryLayout<O>.offset(of: \.errorScale) == MemoryLayout<C>.offset(of: \.errorScale)
            && MemoryLayout<O>.offset(of: \.errorScaleExponent) == MemoryLayout<C>.offset(of: \.errorScaleExponent)
            && MemoryLayout<O>.offset(of: \.blaLoad) == MemoryLayout<C>.offset(of: \.blaLoad)
            && MemoryLayout<O>.offset(of: \.ratio) == MemoryLayout<C>.offset(of: \.ratio)
            && PerturbationOutcome.maxIterations == UInt32(FK_MAX_ITERATIONS)
            && PerturbationOutcome.escaped == UInt32(FK_ESCAPED)
            && PerturbationOutcome.bounded == UInt32(FK_BOUNDED) && PerturbationLaunch.maximumPower == Int(FK_MAX_POWER)
    }()

    static let directMatches: Bool = {
        typealias O = DirectOutcome
        typealias C = FKDirectOut
        return MemoryLayout<O>.stride == MemoryLayout<C>.stride
            && MemoryLayout<O>.offset(of: \.n2) == MemoryLayout<C>.offset(of: \.n2)
            && MemoryLayout<O>.offset(of: \.nBig) == MemoryLayout<C>.offset(of: \.nBig)
            && MemoryLayout<O>.offset(of: \.r2) == MemoryLayout<C>.offset(of: \.r2)
            && MemoryLayout<O>.offset(of: \.e2) == MemoryLayout<C>.offset(of: \.e2)
            && MemoryLayout<O>.offset(of: \.exponent) == MemoryLayout<C>.offset(of: \.exponent)
    }()
}

extension PerturbationLaunch {
    /// The bytes of the orbits, tables and deltas a host launcher copies for the pass (the lanes').
    var hostCopyBytes: Int {
        func tableBytes(_ t: Table?) -> Int {
            guard let t else { return 0 }
            return [t.steps, t.radii, t.levelStarts, t.laEntries, t.chainAt].reduce(0) { $0 + ($1?.byteCount ?? 0) }
        }
        let deltaBytes: Int
        switch deltas {
        case .grid(let columns, let rows, _): deltaBytes = columns.byteCount + rows.byteCount
        case .list(let list): deltaBytes = list.byteCount
        }
        return (orbit?.byteCount ?? 0) + (rebaseOrbit?.byteCount ?? 0) + tableBytes(table) + tableBytes(rebaseTable)
            + deltaBytes
    }
}
