import ArbitraryPrecision
import Foundation
import FractalNumerics

// The perturbation render as five phases (Documentation/Architecture.md, "Phases"), each in its
// own file under Phases/:
//   1. PlaceReferences        the primary reference (center, probe or nucleus; or a file) and,
//                             for Julia, the critical orbit
//   2. ApproximationTables    BLA tables for an orbit, its delta type and its pixels
//   3. FirstPass              every pixel against the primary reference
//   4. GlitchCorrection       detect mode: new references among the glitched pixels
//   5. SettlePixels           the pixels whose smooth value is at risk: finer BLA, 106-bit
//                             deltas against a finer orbit where needed, then direct MPFR
// They share one `PerturbationJob` (parameters, executor, orbits supply, tables) and one
// `PassBuffers` (per-pixel flags). The formula and the delta type are chosen once, here.

enum PerturbationRenderer {
    /// Renders `field` by perturbation (Documentation/Perturbation.md), its passes run by
    /// `executor`.
    static func render(
        location: Location, viewport: Viewport, settings: RenderSettings, executor: any PassExecutor,
        threads: Int, control: RenderControl?, field: inout IterationField
    ) throws -> PerturbationReport {
        let delta = try deltaType(location: location, viewport: viewport, forced: settings.perturbation.deltaType)
        func withDelta<F: PerturbationFormula>(_ formula: F) throws -> PerturbationReport {
            switch delta {
            case .double: try run(formula, Double.self)
            case .floatExp: try run(formula, FloatExp.self)
            case .doubleDouble: try run(formula, DoubleDouble.self)
            }
        }
        func run<F: PerturbationFormula, D: PerturbationDelta>(_ formula: F, _: D.Type) throws -> PerturbationReport {
            let job = try PerturbationJob<F, D>(
                formula: formula, deltaType: delta, location: location, viewport: viewport,
                settings: settings, executor: executor, threads: threads, control: control)
            return try job.render(into: &field)
        }
        switch location.family {
        case .mandelbrot: return try withDelta(QuadraticPerturbation(addsDC: true))
        case .julia: return try withDelta(QuadraticPerturbation(addsDC: false))
        case .multibrot(let p): return try withDelta(MultibrotPerturbation(power: p))
        case .newton: throw RenderError.noPerturbationFormula(family: "newton")
        }
    }

    /// The forced type, else by the spacing; Julia sets whose critical orbit escapes take
    /// double-double where Double would do: pixels outliving an escaping critical orbit
    /// continue from z itself, which Double holds only to 2^-53 absolute
    /// (Documentation/Perturbation.md).
    static func deltaType(location: Location, viewport: Viewport, forced: DeltaType?) throws -> DeltaType {
        if let forced { return forced }
        let delta = DeltaType.forSpacing(log2: viewport.log2Spacing)
        // c correctly rounded to Double (53 bits), as Double(String) rounds it.
        if delta == .double, let c = try location.family.juliaParameter(precision: .double),
            criticalOrbitEscapes(c: Complex(c.re.doubleValue, c.im.doubleValue), within: location.maxIterations)
        {
            return .doubleDouble
        }
        return delta
    }

    /// The orbits' precision of a render (`PerturbationJob.precision`); `RenderPlan` estimates
    /// with it too. Julia at the viewport's full precision; else 64 bits below the spacing
    /// (`Viewport.orbitPrecision`), and from `wideOrbitBits` on 64 more: the precision the
    /// 106-bit passes for pixels at risk need (`SettlePixels.finerOrbitBits`), so that one orbit
    /// serves every pass and no second MPFR run is made. There the 64 bits cost at most about
    /// 12% of the orbit's time and save a whole orbit wherever a few pixels remain at risk
    /// (fs_microfractal_e2608 800x800: 8,738 bits, then a second orbit at 8,802 for 43.9 s;
    /// Documentation/Perturbation.md).
    static func orbitPrecision(location: Location, viewport: Viewport, settings: PerturbationSettings) -> Precision {
        if case .julia = location.family { return Precision(bits: viewport.precision.bits + settings.extraBits) }
        let bits = viewport.orbitPrecision.bits
        let wide = settings.settlesPixelsAtRisk && bits >= wideOrbitBits ? 64 : 0
        return Precision(bits: bits + wide + settings.extraBits)
    }

    /// The view's orbit precision from which the orbit is computed with the 106-bit passes' 64
    /// more bits (`orbitPrecision`): 64 is then at most 1/16 of the bits.
    static var wideOrbitBits: Int { 1024 }

    /// Whether the orbit of 0 under z^2 + c leaves |z| <= 2 within `limit` steps (Double is
    /// enough to choose a delta type).
    static func criticalOrbitEscapes(c: Complex<Double>, within limit: Int) -> Bool {
        let cr = c.re, ci = c.im
        var x = 0.0, y = 0.0
        for _ in 0..<min(limit, 100_000) {
            (x, y) = (x * x - y * y + cr, 2 * x * y + ci)
            if x * x + y * y > 4 { return true }
        }
        return false
    }
}

/// What every phase of one perturbation render reads: the view, the settings, where passes
/// run, the orbits (computed or cached) and the tables built for them.
struct PerturbationJob<F: PerturbationFormula, D: PerturbationDelta> {
    let formula: F
    let deltaType: DeltaType
    let location: Location
    let viewport: Viewport
    let settings: PerturbationSettings
    let renderSettings: RenderSettings
    let executor: any PassExecutor
    let threads: Int
    let control: RenderControl?
    /// The orbits' precision: 64 bits below the spacing (`Viewport.orbitPrecision`), 128 at depth
    /// (`PerturbationRenderer.orbitPrecision`), Julia at the viewport's full precision (with
    /// fewer bits, 4 glitched pixels of the Julia oracle file stayed uncorrected in detect
    /// mode), plus the setting's extra bits.
    let precision: Precision
    let juliaC: BigComplex?
    /// The view's center at `precision`.
    let center: BigComplex
    /// Pauldelbrot's g for this power.
    let tolerance: Double
    let orbits: OrbitSupply
    let tables: ApproximationTables<F>
    /// Each pass as it ran (the report's `passes`, and its `streamedPasses`).
    let timings = PassTimings()
    /// The pixels of this render: `RenderSettings.onlyPixels`, or nil for all.
    var only: [Int]? { renderSettings.onlyPixels }
    var maxIterations: Int { location.maxIterations }

    init(
        formula: F, deltaType: DeltaType, location: Location, viewport: Viewport, settings: RenderSettings,
        executor: any PassExecutor, threads: Int, control: RenderControl?
    ) throws {
        self.formula = formula
        self.deltaType = deltaType
        self.location = location
        self.viewport = viewport
        self.settings = settings.perturbation
        renderSettings = settings
        self.executor = executor
        self.threads = threads
        self.control = control
        precision = PerturbationRenderer.orbitPrecision(
            location: location, viewport: viewport, settings: settings.perturbation)
        juliaC = try location.family.juliaParameter(precision: precision)
        center = viewport.center.rounded(to: precision)
        tolerance = PerturbationSettings.glitchTolerance(power: formula.power)
        orbits = OrbitSupply(
            power: formula.power, juliaC: juliaC, maxIterations: location.maxIterations, precision: precision,
            cache: settings.perturbation.cache, threads: threads, control: control,
            device: executor.referenceDevice,
            bytesPerStep: RenderPlan.bytesPerStep(
                settings: settings, addsDC: formula.addsDC, steps: location.maxIterations,
                pixels: settings.onlyPixels?.count ?? viewport.width * viewport.height))
        // A trap must see every iteration, which BLA steps skip.
        tables = ApproximationTables(
            formula: formula, viewport: viewport, cache: settings.perturbation.cache, threads: threads,
            enabled: settings.perturbation.usesApproximation && settings.extras.trap == nil,
            epsilon: settings.perturbation.blaEpsilon, names: executor.traits.contains(.residentContents),
            method: settings.perturbation.approximation,
            laRatio: settings.perturbation.laEpsilon / settings.perturbation.blaEpsilon)
    }

    /// The five phases in order, and their report.
    func render(into field: inout IterationField) throws -> PerturbationReport {
        var trace = PhaseTrace("perturbation")
        defer { trace.print() }
        let references = try PlaceReferences(job: self).run()
        trace.mark("reference")
        let early = SettlePixels.startFinerOrbit(job: self, references: references)
        defer { early?.cancel() }
        let buffers = PassBuffers(count: field.pixelCount, detect: settings.glitchMode == .detect)
        defer { buffers.deallocate() }
        // A cancelled render stops between phases too, not only between tiles.
        func stopIfCancelled() throws(RenderError) { if control?.isCancelled == true { throw .cancelled } }
        try stopIfCancelled()
        let first = try FirstPass(job: self, references: references, buffers: buffers).run(into: &field)
        trace.mark("first pass")
        try stopIfCancelled()
        let correction = try GlitchCorrection(job: self, first: first, buffers: buffers, references: references).run(
            into: &field)
        trace.mark("glitch passes")
        try stopIfCancelled()
        let settled = try SettlePixels(
            job: self, references: references, buffers: buffers, first: first.epsilon, early: early
        ).run(into: &field)
        trace.mark("passes for pixels at risk")
        if !renderSettings.extras.isEmpty { field.extras = first.extras }
        var report = PerturbationReport(
            deltaType: deltaType, glitchMode: settings.glitchMode, precisionBits: precision.bits,
            references: correction.points.map { ($0.re.decimalString(), $0.im.decimalString()) },
            referenceLength: references.primary.orbit.count, referenceEscaped: references.primary.orbit.escaped,
            glitchedPixels: correction.flagged, uncorrectedPixels: correction.uncorrected,
            referenceSeconds: orbits.seconds,
            doubleDoublePixels: settled.doubleDoublePixels, reiteratedPixels: settled.reiteratedPixels)
        report.referencePeriod = references.period
        report.referenceIsNucleus = references.primary.wraps
        report.referenceBytesPerStep =
            Double(references.primary.orbit.byteCount) / Double(Swift.max(references.primary.orbit.count, 1))
        report.referenceNote = references.note
        report.referenceDevice = orbits.usedDevice
        report.firstPassEpsilon = first.epsilon
        report.settingEpsilonPixels = settled.settingEpsilonPixels
        report.fineApproximationPixels = settled.fineApproximationPixels
        report.fineWidePixels = settled.fineWidePixels
        report.finerOrbitBits = settled.finerOrbitBits
        report.unsettledPixels = settled.unsettled.count
        report.unsettledList = settled.unsettled.map { PixelPosition(index: $0, width: viewport.width) }
        report.approximationSeconds = tables.seconds
        (report.loopSteps, report.approximationSteps) = buffers.totalSteps()
        report.interiorPixels = buffers.interiorCount
        report.streamedPasses = timings.passes.count { $0.streamed }
        report.passes = timings.passes
        return report
    }
}

/// An orbit as a pass iterates against it: the reference, its values in the pass's delta type
/// E (nil: streamed from the compressed orbit, `StreamedOrbit`) and its BLA table (nil: none).
struct PassOrbit<E: PerturbationDelta> {
    let reference: Reference
    let values: [Complex<E>]?
    let table: NamedTable<E>?
}

extension PerturbationJob {
    /// The coarser table epsilon the first pass may take (`PerturbationSettings.coarseFirstPass`;
    /// `FirstPass` decides); nil: the setting's.
    var coarseEpsilon: Double? {
        guard settings.coarseFirstPass, tables.enabled, tables.method == .linear, settings.settlesPixelsAtRisk,
            settings.estimate == .variance, executor.traits.contains(.stepPricedPasses)
        else { return nil }
        return settings.blaEpsilon * PerturbationSettings.firstPassEpsilonFactor
    }

    /// `reference` as a pass with deltas E iterates against it: its values and its table for the
    /// pixels of `subset` (nil: the whole image; []: dc = 0, the critical orbit's) at `epsilon`
    /// (nil: the setting's).
    func passOrbit<E: PerturbationDelta>(
        _ reference: Reference, grid: DeltaGrid<E>, subset: [Int]?, epsilon: Double?
    ) -> PassOrbit<E> {
        let pixels = subset?.count ?? viewport.width * viewport.height
        if streams(reference, pixels: pixels) {
            return PassOrbit(
                reference: reference, values: nil,
                table: tables.table(
                    nil, of: reference, grid: grid, subset: subset, epsilon: epsilon,
                    lowestStage: settings.streamedStage))
        }
        let values = reference.orbit.values(as: E.self)
        return PassOrbit(
            reference: reference, values: values,
            table: tables.table(values, of: reference, grid: grid, subset: subset, epsilon: epsilon))
    }

    /// Whether a pass of `pixels` pixels reads `reference` streamed (`OrbitResidency`), on the
    /// CPU or the GPU: for a formula that adds dc (no second, critical orbit), a reference that
    /// does not wrap (the interior proof reads the decoded orbit) and LA alone (BLA levels are
    /// built from the decoded orbit).
    func streams(_ reference: Reference, pixels: Int) -> Bool {
        formula.addsDC && !reference.wraps
            && (!tables.enabled || tables.method == .linear)
            && settings.orbitResidency.streams(steps: reference.orbit.count, pixels: pixels)
    }

    /// Whether a pass against `reference` tracks the error variance: with the variance estimate
    /// (the default, on the CPU and the GPU alike), and always against a reference pixels wrap
    /// around (a nucleus's, or the center's ended at the view's period), where the product
    /// misses pixels.
    func tracksVariance(against reference: Reference) -> Bool {
        (reference.periodic && formula.addsDC) || settings.estimate == .variance
    }

    /// One perturbation pass with deltas E, tracking T, over `subset` (nil: the whole field):
    /// against `orbit`, continuing on `rebase` (Julia's critical orbit; nil: `orbit` itself)
    /// after rebasing, its device form brought when the executor runs one. Every pass of the
    /// phases is this.
    func perturb<E: PerturbationDelta, T: PixelTracker>(
        _: T.Type, label: String, orbit: PassOrbit<E>, rebase: PassOrbit<E>?, grid: DeltaGrid<E>, mode: GlitchMode,
        subset: [Int]?,
        flags: PixelFlags, tilePixels: Int, control: RenderControl?, progressBase: Double = 0,
        into field: inout IterationField
    ) throws {
        let rebase = rebase ?? orbit
        // Against a wrapped nucleus reference: the error variance tracked forward for the
        // precision estimate (`ErrorVariance`, with
        // any approximation, or none), and with LA the interior proof for the minibrot it sits
        // in (z^2 + c; the first pass only).
        let wrapped = orbit.reference.wraps && formula.addsDC
        let linear = wrapped ? orbit.table?.table.periods : nil
        let variance = tracksVariance(against: orbit.reference)
        func run<B: StretchBound, O: KernelOrbit<E>>(_: B.Type, _ first: O, _ again: O) throws {
            try timed(label, E.self, subset: subset, streamed: first.streamed != nil, flags: flags) { flags in
                var pass = PerturbationPass<F, E, T, B, O>(
                    formula: formula, orbit: first, rebaseOrbit: again, bla: orbit.table?.table,
                    rebaseBLA: rebase.table?.table, grid: grid, maxIterations: maxIterations, mode: mode,
                    tolerance: tolerance, subset: subset, flags: flags,
                    referenceBits: orbit.reference.orbit.precision.bits)
                pass.trap = renderSettings.extras.trap
                pass.log2Spacing = viewport.log2Spacing
                if let linear, let values = first.decoded, formula.power == 2 && flags.interior != nil {
                    pass.interior = InteriorTest(table: linear, orbit: values)
                }
                let count = subset?.count ?? field.pixelCount
                let names =
                    executor.traits.contains(.launches)
                    ? DeviceNames(
                        orbit: orbit.reference.identity, rebaseOrbit: rebase.reference.identity,
                        table: orbit.table?.identity, rebaseTable: rebase.table?.identity) : nil
                let device = names.flatMap { pass.deviceForm(count: count, names: $0, threads: threads) }
                return try executor.run(
                    Pass(
                        PerturbationKernel(pass), count: count, tilePixels: tilePixels, control: control,
                        progressBase: progressBase, device: device),
                    into: &field)
            }
        }
        func run<O: KernelOrbit<E>>(_ first: O, _ again: O) throws {
            if variance {
                try run(ErrorVariance.self, first, again)
            } else {
                try run(ProductStretch.self, first, again)
            }
        }
        if let values = orbit.values, let again = rebase.values {
            try run(DecodedOrbit(values), DecodedOrbit(again))
        } else {
            // Only where the rebase orbit is the orbit itself (`streams`).
            let stream = StreamedOrbit<E>(orbit.reference.orbit)
            try run(stream, stream)
        }
    }
}

/// The per-pixel side outputs every perturbation pass writes (`PixelFlags`): in detect mode the
/// glitch flags and ratios, whether each pixel's smooth value is at risk, and the loop steps.
/// Allocated once per render and freed at its end (`deallocate`); the passes write disjoint
/// pixels through the pointers.
struct PassBuffers {
    let count: Int
    let glitched: UnsafeMutableBufferPointer<UInt8>
    let ratios: UnsafeMutableBufferPointer<Double>
    let atRisk: UnsafeMutableBufferPointer<UInt8>
    let steps: UnsafeMutableBufferPointer<UInt32>
    let approximationSteps: UnsafeMutableBufferPointer<UInt32>
    /// 1 where a pixel was proven interior.
    let interior: UnsafeMutableBufferPointer<UInt8>

    init(count: Int, detect: Bool) {
        self.count = count
        func filled<T>(_ n: Int, _ value: T) -> UnsafeMutableBufferPointer<T> {
            let b = UnsafeMutableBufferPointer<T>.allocate(capacity: n)
            b.initialize(repeating: value)
            return b
        }
        glitched = filled(detect ? count : 0, 0)
        ratios = filled(detect ? count : 0, .nan)
        atRisk = filled(count, 0)
        steps = filled(count, 0)
        approximationSteps = filled(count, 0)
        interior = filled(count, 0)
    }

    /// Frees the buffers: once, when the render is done with them.
    func deallocate() {
        glitched.deallocate()
        ratios.deallocate()
        atRisk.deallocate()
        steps.deallocate()
        approximationSteps.deallocate()
        interior.deallocate()
    }

    var detects: Bool { !glitched.isEmpty }

    /// The flags a whole-field pass writes: everything, with `extras` for a tracking kernel.
    func allFlags(extras: ExtrasWriter? = nil) -> PixelFlags {
        PixelFlags(
            glitched: detects ? glitched.baseAddress : nil, ratio: detects ? ratios.baseAddress : nil,
            atRisk: atRisk.baseAddress, steps: steps.baseAddress, approximationSteps: approximationSteps.baseAddress,
            interior: interior.baseAddress, extras: extras)
    }

    /// The flags a pass over pixels at risk writes: only whether each is still at risk.
    var riskFlags: PixelFlags { PixelFlags(glitched: nil, ratio: nil, atRisk: atRisk.baseAddress) }

    func isGlitched(_ i: Int) -> Bool { detects && glitched[i] != 0 }
    func isAtRisk(_ i: Int) -> Bool { atRisk[i] != 0 }

    var interiorCount: Int { interior.reduce(0) { $0 + Int($1) } }

    func totalSteps() -> (Int, Int) {
        (steps.reduce(0) { $0 + Int($1) }, approximationSteps.reduce(0) { $0 + Int($1) })
    }
}

extension PerturbationJob {
    /// Runs one pass (`body`, given the flags to run it with) and records its wall time and
    /// loop steps in `timings`: the steps from the pass's per-pixel counts, before and after,
    /// over its pixels; where its flags count none (the passes for pixels at risk), in a
    /// zeroed scratch count of its own (from `calloc`: only the pages its pixels touch are
    /// committed), so the report's totals stay the first passes'. `body` returns the executor
    /// that ran the pass: its threads are the host threads it ran on (one "core" for a GPU).
    func timed(
        _ label: String, _ delta: (some PerturbationDelta).Type, subset: [Int]?, streamed: Bool, flags: PixelFlags,
        _ body: (PixelFlags) throws -> any PassExecutor
    ) throws {
        let pixelCount = viewport.width * viewport.height
        let scratch =
            flags.steps == nil
            ? calloc(pixelCount, MemoryLayout<UInt32>.stride)?.assumingMemoryBound(to: UInt32.self) : nil
        defer { free(scratch) }
        let counted = scratch.map { flags.counting(steps: $0) } ?? flags
        func total() -> Int {
            guard let steps = counted.steps else { return 0 }
            if let subset { return subset.reduce(0) { $0 + Int(steps[$1]) } }
            let shared = SendablePointer(steps)
            return Parallel.sum(pixelCount) { Int(shared.pointer[$0]) }
        }
        let before = total()
        let start = DispatchTime.now().uptimeNanoseconds
        let ran = try body(counted)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        timings.passes.append(
            PassTiming(
                label: label, deltas: "\(delta)", pixels: subset?.count ?? pixelCount, seconds: seconds,
                loopSteps: total() - before, threads: max(1, ran.hostThreads), form: ran.deviceName,
                laneWidth: ran.laneWidth, streamed: streamed))
    }
}
