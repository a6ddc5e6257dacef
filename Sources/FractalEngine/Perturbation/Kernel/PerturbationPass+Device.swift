import FractalNumerics

/// What a pass's orbits and tables are called on a device (nil entries: not kept there).
struct DeviceNames {
    var orbit: OrbitIdentity?
    var rebaseOrbit: OrbitIdentity?
    var table: TableIdentity?
    var rebaseTable: TableIdentity?
}

extension PerturbationPass {
    /// This pass (items 0 ..< count) as a GPU backend runs it (`PerturbationLaunch`), its
    /// outcomes finished by `finish`, as the CPU's are, so the field and flags equal the
    /// CPU's when the device rounds like the CPU. With the interior proof, the proof runs here
    /// on the host first, on `threads` threads (as the CPU's tiles run it before a pixel's first
    /// step): the pixels it proves are finished on the host (`DeviceForm.finishOnHost`), and
    /// only the others launch. Nil where no backend kernel exists: tracking kernels (extras),
    /// powers above `PerturbationLaunch.maximumPower`, a delta type the kernels do not take;
    /// and where the proof leaves no pixel to launch.
    func deviceForm(count: Int, names: DeviceNames, threads: Int) -> DeviceForm? {
        guard !T.isActive, formula.power <= PerturbationLaunch.maximumPower else { return nil }
        // The orbit decoded (both orbits), or streamed (then its own rebase orbit).
        let decoded = orbit.decoded.flatMap { a in rebaseOrbit.decoded.map { (a, $0) } }
        let stream = decoded == nil ? orbit.streamed : nil
        guard decoded != nil || stream != nil, let delta = PerturbationLaunch.Delta(D.self) else { return nil }
        let kind = ObjectIdentifier(D.self)
        func array<V: Sendable>(
            _ values: [V], _ orbit: OrbitIdentity?, _ table: TableIdentity? = nil,
            _ part: DeviceContent.Part
        ) -> LaunchArray {
            LaunchArray(values, content: orbit.map { DeviceContent(orbit: $0, delta: kind, table: table, part: part) })
        }
        func launchTable(_ table: ApproximationTable<D>?, _ name: TableIdentity?) -> PerturbationLaunch.Table? {
            guard let table else { return nil }
            let orbit = name?.orbit
            let bla = !table.steps.isEmpty, la = table.periods.map { !$0.entries.isEmpty } ?? false
            guard bla || la else { return nil }
            return PerturbationLaunch.Table(
                steps: bla ? array(table.steps, orbit, name, .steps) : nil,
                radii: bla ? array(table.radii, orbit, name, .radii) : nil,
                levelStarts: bla ? array(table.levelStarts, orbit, name, .levelStarts) : nil,
                levels: bla ? table.levelCount : 0,
                laEntries: la ? array(table.periods!.entries, orbit, name, .laEntries) : nil,
                chainAt: la ? array(table.periods!.chainAt, orbit, name, .chainAt) : nil,
                laLoadScale: table.laLoadScale)
        }
        let sharesOrbit = decoded.map { sameStorage($0.0, $0.1) } ?? true
        // One table for both (Mandelbrot): the same content's name (storage would not tell: two
        // LA-only tables may share an empty steps array or a constant level-starts literal).
        let sharesTable = bla != nil && rebaseBLA != nil && names.table != nil && names.table == names.rebaseTable
        // The items that launch (nil: all), and those the interior proof settled.
        let (launched, proven) = interior.map { provenItems(count: count, by: $0, threads: threads) } ?? (nil, [])
        if let launched, launched.isEmpty { return nil }
        let deltas: PerturbationLaunch.Deltas
        if let launched {
            deltas = .list(LaunchArray(grid.deltas(of: launched.map(pixel), count: launched.count)))
        } else if subset == nil && !grid.rotated {
            deltas = .grid(columns: LaunchArray(grid.columns), rows: LaunchArray(grid.rows), width: grid.width)
        } else {
            deltas = .list(LaunchArray(grid.deltas(of: subset, count: count)))
        }
        let launch = PerturbationLaunch(
            delta: delta, orbit: decoded.map { array($0.0, names.orbit, nil, .orbit) },
            stream: stream?.launchStream { part in
                names.orbit.map { DeviceContent(orbit: $0, delta: kind, table: nil, part: part) }
            }, orbitCount: decoded?.0.count ?? (stream?.orbit.count ?? 0),
            rebaseOrbit: sharesOrbit ? nil : array(decoded!.1, names.rebaseOrbit, nil, .orbit),
            table: launchTable(bla, names.table),
            rebaseTable: sharesTable ? nil : launchTable(rebaseBLA, names.rebaseTable),
            rebaseSharesTable: sharesTable, deltas: deltas, count: launched?.count ?? count,
            maxIterations: maxIterations,
            power: formula.power,
            addsDC: formula.addsDC, detect: mode == .detect, tolerance: tolerance, variance: B.variance,
            epsilon: bla?.epsilon ?? 0, binomials: formula.binomialRow)
        let pass = self
        var finishOnHost: (@Sendable (FieldWriter) -> Void)?
        if !proven.isEmpty {
            finishOnHost = { writer in pass.finishProven(proven, threads: threads, writer: writer) }
        }
        return DeviceForm(launch: .perturbation(launch), finishOnHost: finishOnHost) { items, raw, writer in
            DeviceForm.forEachOutcome(PerturbationOutcome.self, items, raw) { k, out in
                let i = pass.pixel(launched?[k] ?? k)
                let outcome = pass.outcome(of: out)
                // The delta only where the finisher reads it.
                pass.finish(
                    i, outcome, dc: outcome.end == .escaped ? pass.grid.delta(i) : .zero, writer: writer)
            }
        }
    }

    /// Writes items `proven`, which the interior proof settled, as the CPU's tiles write them.
    func finishProven(_ proven: [Int], threads: Int, writer: FieldWriter) {
        let pass = self
        Parallel.forEachChunk(proven.count, threads: threads) { range in
            for k in range { pass.finishInterior(pass.pixel(proven[k]), writer: writer) }
        }
    }

    /// The interior proof of items 0 ..< count on `threads` threads (`PerturbationKernel`
    /// runs the same test before a pixel's first step): the items it leaves, and those it proves.
    func provenItems(count: Int, by interior: InteriorTest<D>, threads: Int) -> (left: [Int], proven: [Int]) {
        var isProven = [Bool](repeating: false, count: count)
        isProven.withUnsafeMutableBufferPointer { buffer in
            let out = SendablePointer(buffer.baseAddress!)
            let pass = self
            Parallel.forEachChunk(count, threads: threads) { range in
                for j in range { out.pointer[j] = interior.proves(dc: pass.grid.delta(pass.pixel(j))) }
            }
        }
        var left: [Int] = [], proven: [Int] = []
        for j in 0..<count {
            if isProven[j] { proven.append(j) } else { left.append(j) }
        }
        return (left, proven)
    }

    /// A device's outcome record as the finisher takes it.
    func outcome(of out: PerturbationOutcome) -> PixelOutcome {
        var work = PixelWork()
        work.steps = Int(out.steps)
        work.approximationSteps = Int(out.approximationSteps)
        switch out.kind {
        case PerturbationOutcome.escaped:
            return PixelOutcome(
                end: .escaped, n2: Int(out.n2), n: Int(out.n), r2: out.r2, errorScale: out.errorScale,
                errorScaleExponent: Int(out.errorScaleExponent), blaLoad: out.blaLoad, work: work)
        case PerturbationOutcome.bounded: return PixelOutcome(end: .bounded, ratio: out.ratio, work: work)
        default: return PixelOutcome(end: .limit, n2: Int(out.n2), work: work)
        }
    }
}

/// Whether two arrays share their storage (the rebase orbit that is the orbit itself).
func sameStorage<T>(_ a: [T], _ b: [T]) -> Bool {
    a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
}
