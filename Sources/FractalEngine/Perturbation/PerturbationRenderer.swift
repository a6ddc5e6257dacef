import ArbitraryPrecision
import Foundation
import FractalNumerics

/// The delta type of a perturbation render (chosen once per render by the pixel spacing).
public enum DeltaType: String, Sendable, CaseIterable {
    case double
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
    /// The view's center.
    case center
    /// The point of a 5 x 5 probe of the view whose orbit is longest (the xFractal app's rule).
    case probe
    /// The nucleus of the minibrot that dominates the view (`MinibrotFinder`), when it lies
    /// inside the view: a reference that never escapes. Mandelbrot only; else the center.
    case nucleus
}

/// Perturbation settings.
public struct PerturbationSettings: Sendable, Equatable {
    public var glitchMode: GlitchMode
    public var placement: ReferencePlacement
    /// Force a delta type instead of choosing by spacing.
    public var deltaType: DeltaType?
    /// References the detect mode may add after the first.
    public var referenceBudget: Int
    /// Extra MPFR bits beyond -log2(spacing) + 64.
    public var extraBits: Int
    /// Read the primary reference orbit from this file instead of computing it (it must be
    /// for the same family and iteration limit, at no less precision).
    public var loadReference: String?
    /// Write the primary reference orbit to this file.
    public var saveReference: String?
    /// Stage the primary reference orbit's file in this output of its caller's `OutputSet`
    /// instead (committed with the caller's other outputs; `saveReference` is then unused).
    public var referenceOutput: OutputSlot?
    /// Iterate pixels whose smooth value the deltas may not hold to 1e-7 again, directly in
    /// MPFR (`PrecisionEstimate`).
    public var exactSensitivePixels: Bool = true
    /// The most CPU time the MPFR pass may take, estimated as pixels x iteration limit x
    /// `mpfrStepSeconds` (an upper bound: that many iterations each): 300 s.
    public var mpfrBudgetSeconds: Double = 300

    /// A generous estimate of one direct MPFR iteration's cost: measured here about 1 us at
    /// 1,100 bits and 400 us at 77,000 bits (products grow faster than linearly in bits).
    public static func mpfrStepSeconds(bits: Int, power: Int) -> Double {
        1.2e-6 * Math.pow(Double(bits) / 1000, 1.6) * Double(power - 1)
    }
    /// Bilinear approximation (BLA): skip iterations while the terms nonlinear in dz stay
    /// below `blaEpsilon` relative (every family but Newton, every delta type).
    public var bla: Bool = true
    /// BLA's epsilon (Documentation/Design.md section 6; Documentation/Perturbation.md for the choice).
    public var blaEpsilon: Double = PerturbationSettings.defaultBLAEpsilon
    public static let defaultBLAEpsilon = 0x1p-40
    /// Reference orbits and BLA tables shared by renders of the same center (zoom sequences).
    public var cache: ReferenceCache?

    public init(glitchMode: GlitchMode = .rebase, placement: ReferencePlacement = .center, deltaType: DeltaType? = nil, referenceBudget: Int = 512, extraBits: Int = 0) {
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
    public var deltaType: DeltaType
    public var glitchMode: GlitchMode
    public var precisionBits: Int
    /// The reference points used, first the primary one, as decimal strings.
    public var references: [(re: String, im: String)]
    /// Length of the primary reference orbit and whether it escaped.
    public var referenceLength: Int
    public var referenceEscaped: Bool
    /// Pixels the detect mode flagged in the first pass, and those left after correction.
    public var glitchedPixels: Int
    public var uncorrectedPixels: Int
    public var referenceSeconds: Double
    /// Pixels rendered again with BLA at epsilon 2^-53 because their smooth value was at risk.
    public var fineBLAPixels: Int = 0
    /// Pixels rendered again with 106-bit deltas (double-double, or extended-range
    /// double-double below 2^-960) because their smooth value was at risk.
    public var doubleDoublePixels: Int
    /// Pixels rendered again with 106-bit deltas against an orbit at 64 more bits (the
    /// orbit's own rounding kept them at risk).
    public var finerOrbitPixels: Int = 0
    /// Pixels iterated again directly in MPFR because it was still at risk.
    public var reiteratedPixels: Int
    /// Pixels still at risk after the 106-bit pass that the MPFR budget did not cover
    /// (`PerturbationSettings.mpfrBudgetSeconds`): their counts are very likely right, their smooth
    /// values not checked to 1e-7.
    public var unsettledPixels: Int = 0
    /// Seconds spent building BLA tables (all references).
    public var blaSeconds: Double = 0
    /// Loop steps over all pixels and passes (each a BLA step or one perturbation step), and
    /// how many of them were BLA steps.
    public var loopSteps: Int = 0
    public var blaSteps: Int = 0
}

enum PerturbationRenderer {
    /// Renders `field` by perturbation (see Documentation/Perturbation.md).
    static func render(
        location: Location, viewport: Viewport, settings: RenderSettings, perturbation: PerturbationSettings,
        threads: Int, control: RenderControl?, gpu: GPUExecutor? = nil, field: inout IterationField
    ) throws -> PerturbationReport {
        let log2s = viewport.log2Spacing
        var delta = perturbation.deltaType ?? DeltaType.forSpacing(log2: log2s)
        if perturbation.deltaType == nil, delta == .double, case .julia(let re, let im) = location.family,
           criticalOrbitEscapes(re: re, im: im, within: location.maxIterations) {
            // Pixels outliving an escaping critical orbit continue from z itself, which
            // Double holds only to 2^-53 absolute: double-double keeps them exact
            // (Documentation/Perturbation.md).
            delta = .doubleDouble
        }
        // One switch for the formula, one for the delta type: every kernel below is specialised.
        func withDelta<F: PerturbationFormula>(_ formula: F) throws -> PerturbationReport {
            switch delta {
            case .double:
                try run(settings, formula, Double.self, location, viewport, perturbation, threads, control, gpu, &field)
            case .floatExp:
                try run(settings, formula, FloatExp.self, location, viewport, perturbation, threads, control, gpu, &field)
            case .doubleDouble:
                try run(settings, formula, DoubleDouble.self, location, viewport, perturbation, threads, control, gpu, &field)
            }
        }
        switch location.family {
        case .mandelbrot: return try withDelta(QuadraticPerturbation(addsDC: true))
        case .julia: return try withDelta(QuadraticPerturbation(addsDC: false))
        case .multibrot(let p): return try withDelta(MultibrotPerturbation(power: p))
        case .newton: throw RenderError.noPerturbationFormula(family: "newton")
        }
    }

    private static func run<F: PerturbationFormula, D: PerturbationDelta>(
        _ renderSettings: RenderSettings, _ formula: F, _: D.Type, _ location: Location, _ viewport: Viewport, _ settings: PerturbationSettings,
        _ threads: Int, _ control: RenderControl?, _ gpu: GPUExecutor?, _ field: inout IterationField
    ) throws -> PerturbationReport {
        // Orbits at 64 bits below the spacing (`Viewport.orbitPrecision`); Julia at the
        // viewport's full precision (with fewer bits, 4 glitched pixels of the Julia oracle
        // file stayed uncorrected in detect mode).
        var trace = PhaseTrace("perturbation")
        defer { trace.print() }
        var isJulia = false
        if case .julia = location.family { isJulia = true }
        let precision = Precision(bits: (isJulia ? viewport.precision : viewport.orbitPrecision).bits + settings.extraBits)
        let juliaC = try location.family.juliaParameter(precision: precision)
        let center = BigComplex(viewport.center.re.rounded(to: precision), viewport.center.im.rounded(to: precision))
        var referenceSeconds = 0.0
        // Every orbit keeps its low words: pixels at risk are rendered again with 106-bit
        // deltas from the same orbit, without a second MPFR run.
        // From the cache, else computed (and cached); safe to call from several threads.
        let (power, maxIterations, cache, juliaParameter) = (formula.power, location.maxIterations, settings.cache, juliaC)
        // `partner`: a second thread for the orbit's products (when nothing else runs then).
        let fetch: @Sendable (BigComplex, Bool, Bool) throws -> ReferenceOrbit = { point, lowWords, partner in
            if let cached = cache?.orbit(for: point, power: power, juliaC: juliaParameter, maxIterations: maxIterations,
                                         precision: precision, lowWords: lowWords) {
                return cached
            }
            let computed = try ReferenceOrbit.compute(point: point, power: power, juliaC: juliaParameter, maxIterations: maxIterations,
                                                      precision: precision, lowWords: lowWords, control: control,
                                                      partnerThread: partner)
            cache?.store(computed)
            return computed
        }
        func orbit(at point: BigComplex, lowWords: Bool = true) throws -> ReferenceOrbit {
            let start = DispatchTime.now().uptimeNanoseconds
            defer { referenceSeconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
            return try fetch(point, lowWords, threads > 1)
        }
        // Several orbits at once, one per thread (the probe's candidates; Julia's reference
        // and critical orbits): each is a single-threaded MPFR loop.
        func orbits(at points: [BigComplex]) throws -> [ReferenceOrbit] {
            if points.count == 1 || threads == 1 { return try points.map { try orbit(at: $0) } }
            let start = DispatchTime.now().uptimeNanoseconds
            let results = OrbitResults(count: points.count)
            DispatchQueue.concurrentPerform(iterations: points.count) { k in
                results.set(k, Result { try fetch(points[k], true, false) })
            }
            referenceSeconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            return try results.values()
        }
        var criticalOrbit: ReferenceOrbit?

        // The primary reference.
        var referencePoint = center
        var primary: ReferenceOrbit
        if let path = settings.loadReference {
            primary = try ReferenceOrbit.read(from: path)
            let lengthFits = primary.escaped ? primary.count <= location.maxIterations + 1 : primary.count == location.maxIterations + 1
            guard primary.power == formula.power, (primary.juliaC == nil) == (juliaC == nil),
                  primary.juliaC.map({ $0 == juliaC! }) ?? true, primary.precision >= viewport.orbitPrecision, lengthFits
            else { throw ReferenceFileError.mismatch(path: path) }
            referencePoint = primary.point
        } else {
            if juliaC != nil {
                // Julia rebases onto the orbit of the critical point 0: both at once.
                let both = try orbits(at: [center, BigComplex(precision: precision)])
                primary = both[0]
                criticalOrbit = both[1]
            } else if settings.placement == .nucleus && formula.power == 2,
                      let m = MinibrotFinder.find(near: center, radius: viewport.radius.floatExpValue, maxPeriod: location.maxIterations),
                      viewport.contains(m.nucleus) {
                referencePoint = BigComplex(m.nucleus.re.rounded(to: precision), m.nucleus.im.rounded(to: precision))
                primary = try orbit(at: referencePoint)
            } else {
                primary = try orbit(at: center)
            }
            if settings.placement == .probe && primary.escaped {
                // The 5 x 5 probe, in scan order: the longest orbit wins; one that never
                // escapes ends the search. Candidates are computed `threads` at a time.
                let points = (0..<25).map { k -> BigComplex in
                    let i = k % 5, j = k / 5
                    let point = viewport.exactPoint(x: (viewport.width - 1) * (2 * i + 1) / 10, y: (viewport.height - 1) * (2 * j + 1) / 10)
                    return BigComplex(point.re.rounded(to: precision), point.im.rounded(to: precision))
                }
                var k = 0
                probe: while k < points.count {
                    let batch = try orbits(at: Array(points[k..<min(points.count, k + max(1, threads))]))
                    k += batch.count
                    for candidate in batch {
                        if candidate.count > primary.count || (!candidate.escaped && primary.escaped) {
                            primary = candidate
                            referencePoint = candidate.point
                        }
                        if !primary.escaped { break probe }
                    }
                }
            }
        }
        if let slot = settings.referenceOutput {
            try slot.set.stage(primary.fileData(), at: slot.index)
        } else if let path = settings.saveReference {
            try primary.write(to: path)
        }
        trace.mark("reference")

        let tolerance = PerturbationSettings.glitchTolerance(power: formula.power)
        let count = field.pixelCount
        var flags = [UInt8](repeating: 0, count: settings.glitchMode == .detect ? count : 0)
        var ratios = [Double](repeating: .nan, count: settings.glitchMode == .detect ? count : 0)
        var sensitive = [UInt8](repeating: 0, count: count)
        var references = [(referencePoint.re.decimalString(), referencePoint.im.decimalString())]

        if juliaC != nil && criticalOrbit == nil { criticalOrbit = try orbit(at: BigComplex(precision: precision)) }
        let critical = criticalOrbit?.values(as: D.self)

        // BLA (Documentation/Perturbation.md): the setting's epsilon for Double
        // and FloatExp deltas, 2^-53 times it for double-double deltas.
        // A trap must see every iteration, which BLA steps skip.
        let useBLA = settings.bla && renderSettings.extras.trap == nil
        var blaSeconds = 0.0
        var loopSteps = [UInt32](repeating: 0, count: count)
        var blaSteps = [UInt32](repeating: 0, count: count)
        func table<E: PerturbationDelta>(_ values: [Complex<E>], of reference: ReferenceOrbit, grid: DeltaGrid<E>, subset: [Int]?,
                                         epsilon baseEpsilon: Double = settings.blaEpsilon) -> BLATable<E>? {
            guard useBLA else { return nil }
            let start = DispatchTime.now().uptimeNanoseconds
            defer { blaSeconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
            let dcMax = formula.addsDC ? grid.maxMagnitude(over: subset, height: viewport.height) : E.zero
            let epsilon = baseEpsilon * (E.significandBits > 53 ? 0x1p-53 : 1)
            // The same orbit (its first, last and length), deltas, bound and epsilon: the same table.
            let key = settings.cache == nil ? "" : "\(E.self) \(reference.point.re.decimalString()) \(reference.point.im.decimalString()) "
                + "\(reference.precision.bits) \(reference.count) \(dcMax) \(epsilon) \(formula.addsDC)"
            if let cached = settings.cache?.table(key, E.self) { return cached }
            let built = BLATable(orbit: values, dcMax: dcMax, epsilon: epsilon, addsDC: formula.addsDC, power: formula.power,
                                 escapeGaps: reference.escapeGaps, threads: threads)
            settings.cache?.store(built, key: key)
            return built
        }
        let criticalTable = critical.map { table($0, of: criticalOrbit!, grid: DeltaGrid<D>(viewport: viewport, reference: center), subset: []) } ?? nil

        // Extras (distance estimate, slope, trap) come from these passes, not from the passes
        // for pixels at risk after them (Documentation/Coloring.md).
        var extrasField = ExtrasField(count: renderSettings.extras.isEmpty ? 0 : count, request: renderSettings.extras)
        let log2Spacing = viewport.log2Spacing
        func pass(_ reference: ReferenceOrbit, at point: BigComplex, subset: [Int]?) throws {
            let values = reference.values(as: D.self)
            let grid = DeltaGrid<D>(viewport: viewport, reference: point)
            let bla = table(values, of: reference, grid: grid, subset: subset)
            try flags.withUnsafeMutableBufferPointer { f in
              try ratios.withUnsafeMutableBufferPointer { r in
                try sensitive.withUnsafeMutableBufferPointer { sens in
                  try loopSteps.withUnsafeMutableBufferPointer { steps in
                   try blaSteps.withUnsafeMutableBufferPointer { blaStepsBuffer in
                    let detect = settings.glitchMode == .detect
                    func pixelFlags(extras: ExtrasWriter? = nil) -> PixelFlags {
                        PixelFlags(glitched: detect ? f.baseAddress! : nil, ratio: detect ? r.baseAddress! : nil, sensitive: sens.baseAddress!,
                                   steps: steps.baseAddress!, blaSteps: blaStepsBuffer.baseAddress!, extras: extras)
                    }
                    func fill<T: PixelTracker>(_: T.Type, extras: ExtrasWriter?) throws {
                        var kernel = PerturbationKernel<F, D, T>(
                            formula: formula, orbit: values, rebaseOrbit: critical ?? values,
                            bla: bla, rebaseBLA: critical == nil ? bla : criticalTable,
                            grid: grid, maxIterations: location.maxIterations, mode: settings.glitchMode, tolerance: tolerance,
                            subset: subset, flags: pixelFlags(extras: extras), referenceBits: reference.precision.bits)
                        kernel.trap = renderSettings.extras.trap
                        kernel.log2Spacing = log2Spacing
                        try execute(kernel, count: subset?.count ?? count, tilePixels: subset == nil ? 1024 : 16,
                                    control: subset == nil ? control : nil, progressBase: 0.1, orbits: (reference, criticalOrbit))
                    }
                    if renderSettings.extras.isEmpty {
                        try fill(NoTracking.self, extras: nil)
                    } else {
                        try extrasField.withWriter { try fill(ExtrasTracking.self, extras: $0) }
                    }
                   }
                  }
                }
              }
            }
        }

        // The backend seam: a pass runs on the GPU backend when there is one and it runs this
        // kernel, else in tiles on the CPU. `orbits` (the kernel's orbit and critical orbit)
        // name the contents under which the GPU keeps its copies for later passes and frames.
        func execute<E: PerturbationDelta, T: PixelTracker>(
            _ kernel: PerturbationKernel<F, E, T>, count: Int, tilePixels: Int, control: RenderControl?, progressBase: Double = 0,
            orbits: (ReferenceOrbit, ReferenceOrbit?)
        ) throws {
            if let gpu {
                func name(_ o: ReferenceOrbit) -> String {
                    "\(E.self) \(location.family) \(o.point.re.decimalString()) \(o.point.im.decimalString()) \(o.precision.bits) \(o.count)"
                }
                let orbitName = name(orbits.0), criticalName = orbits.1.map(name) ?? orbitName
                let names = GPUResidency(orbit: orbitName, rebaseOrbit: criticalName,
                                         table: kernel.bla.map { "\(orbitName) BLA \($0.dcMax) \($0.epsilon)" },
                                         rebaseTable: kernel.rebaseBLA.map { "\(criticalName) BLA \($0.dcMax) \($0.epsilon)" })
                if try gpu.perturb(kernel, count: count, field: &field, control: control, resident: names) { return }
            }
            Renderer.fill(&field, kernel: kernel, count: count, tilePixels: tilePixels, threads: threads, control: control,
                          progressBase: progressBase, order: renderSettings.tileOrder)
        }
        let only = renderSettings.onlyPixels
        trace.mark("setup")
        try pass(primary, at: referencePoint, subset: only)
        trace.mark("first pass")
        var glitched = settings.glitchMode == .detect ? (only ?? Array(0..<count)).filter { flags[$0] != 0 } : []
        let firstPassGlitched = glitched.count
        var budget = settings.referenceBudget
        while !glitched.isEmpty && budget > 0 {
            if control?.isCancelled == true { throw RenderError.cancelled }
            budget -= 1
            let group = largestGroup(glitched, flags: flags, width: viewport.width, height: viewport.height)
            // The pixel of the group nearest to its glitch's cause: smallest |z|^2 / |Z|^2; for
            // pixels that outlived an escaping reference (ratio 0) the one nearest the group's
            // centroid, where a longer-lived orbit (a minibrot's) is likeliest.
            var pick = group.min { ratios[$0] < ratios[$1] }!
            if ratios[pick] == 0 {
                let w = viewport.width
                let cx = Double(group.reduce(0) { $0 + $1 % w }) / Double(group.count)
                let cy = Double(group.reduce(0) { $0 + $1 / w }) / Double(group.count)
                pick = group.min { a, b in
                    let da = (Double(a % w) - cx) * (Double(a % w) - cx) + (Double(a / w) - cy) * (Double(a / w) - cy)
                    let db = (Double(b % w) - cx) * (Double(b % w) - cx) + (Double(b / w) - cy) * (Double(b / w) - cy)
                    return da < db
                }!
            }
            let point = viewport.exactPoint(x: pick % viewport.width, y: pick / viewport.width)
            let reference = try orbit(at: BigComplex(point.re.rounded(to: precision), point.im.rounded(to: precision)))
            references.append((reference.point.re.decimalString(), reference.point.im.decimalString()))
            try pass(reference, at: reference.point, subset: glitched)
            let before = glitched.count
            glitched = glitched.filter { flags[$0] != 0 }
            if glitched.count == before && flags[pick] != 0 { break }  // no progress, even at the reference itself
        }
        // Pixels whose smooth value the deltas may not hold to 1e-7: first again with
        // double-double deltas (where Double's range suffices: 2^53 times finer), then, for
        // any still at risk, directly in MPFR at the viewport's precision (-log2 s + 64 bits,
        // the oracle's).
        trace.mark("glitch passes")
        var sensitivePixels = (only ?? Array(0..<count)).filter { sensitive[$0] != 0 && (flags.isEmpty || flags[$0] == 0) }
        // One pass over the pixels still at risk, in rebase mode against the primary reference
        // (`fine`, with `fineCritical` for Julia), with deltas E and BLA at `epsilon`.
        func riskPass<E: PerturbationDelta>(_: E.Type, orbit fine: ReferenceOrbit, critical fineCritical: ReferenceOrbit?, epsilon: Double) throws {
            let values = fine.values(as: E.self)
            let criticalValues = fineCritical?.values(as: E.self)
            let grid = DeltaGrid<E>(viewport: viewport, reference: referencePoint)
            let fineTable = table(values, of: fine, grid: grid, subset: sensitivePixels, epsilon: epsilon)
            let fineCriticalTable = criticalValues.map { table($0, of: fineCritical!, grid: grid, subset: [], epsilon: epsilon) } ?? nil
            try sensitive.withUnsafeMutableBufferPointer { sens in
                let kernel = PerturbationKernel<F, E, NoTracking>(
                    formula: formula, orbit: values, rebaseOrbit: criticalValues ?? values,
                    bla: fineTable, rebaseBLA: criticalValues == nil ? fineTable : fineCriticalTable, grid: grid,
                    maxIterations: location.maxIterations, mode: .rebase, tolerance: tolerance, subset: sensitivePixels,
                    flags: PixelFlags(glitched: nil, ratio: nil, sensitive: sens.baseAddress!), referenceBits: fine.precision.bits)
                try execute(kernel, count: sensitivePixels.count, tilePixels: 16, control: nil, orbits: (fine, fineCritical))
            }
            sensitivePixels = sensitivePixels.filter { sensitive[$0] != 0 }
        }
        var fineBLAPixels = 0
        if !sensitivePixels.isEmpty && settings.exactSensitivePixels && useBLA && settings.blaEpsilon > Self.fineBLAEpsilon {
            // BLA's truncation may be what puts them at risk: the same deltas with a table
            // whose epsilon is at the rounding level (2^-53), built for these pixels only.
            if control?.isCancelled == true { throw RenderError.cancelled }
            fineBLAPixels = sensitivePixels.count
            try riskPass(D.self, orbit: primary, critical: criticalOrbit, epsilon: Self.fineBLAEpsilon)
        }
        // Then with 106-bit deltas from the same orbit's low words: double-double where the
        // spacing is above 2^-960, extended-range double-double below.
        func widePass<E: PerturbationDelta>(_ type: E.Type) throws {
            let fine = primary.reLow.isEmpty ? try orbit(at: referencePoint, lowWords: true) : primary
            let fineCritical = juliaC == nil ? nil : criticalOrbit?.reLow.isEmpty == false ? criticalOrbit : try orbit(at: BigComplex(precision: precision), lowWords: true)
            try riskPass(type, orbit: fine, critical: fineCritical, epsilon: settings.blaEpsilon)
        }
        var doubleDoublePixels = 0
        if !sensitivePixels.isEmpty && settings.exactSensitivePixels && D.significandBits <= 53 {
            if control?.isCancelled == true { throw RenderError.cancelled }
            doubleDoublePixels = sensitivePixels.count
            if D.self == Double.self { try widePass(DoubleDouble.self) } else { try widePass(DoubleDoubleExp.self) }
        }
        // The orbit's own rounding (64 bits below the spacing) may be what keeps them at risk
        // (the estimate's reference term): when iterating them in MPFR would cost more than
        // the orbit did, the 106-bit pass again against the same point's orbit at 64 more
        // bits (e50 640x360: 210 pixels left for MPFR, 6 s; Documentation/Perturbation.md).
        var finerOrbitPixels = 0
        let stepSeconds = PerturbationSettings.mpfrStepSeconds(bits: viewport.precision.bits, power: formula.power)
        if !sensitivePixels.isEmpty && settings.exactSensitivePixels && D.significandBits <= 53 && juliaC == nil
            && Double(sensitivePixels.count) * Double(location.maxIterations) * stepSeconds > 2 * referenceSeconds {
            if control?.isCancelled == true { throw RenderError.cancelled }
            finerOrbitPixels = sensitivePixels.count
            let finerPrecision = Precision(bits: precision.bits + 64)
            // Not through the cache: a cached finer orbit would make this render depend on
            // the renders before it (a sequence's slices must equal the full run).
            let start = DispatchTime.now().uptimeNanoseconds
            let finer = try ReferenceOrbit.compute(
                point: BigComplex(referencePoint.re.rounded(to: finerPrecision), referencePoint.im.rounded(to: finerPrecision)),
                power: formula.power, juliaC: nil, maxIterations: location.maxIterations, precision: finerPrecision,
                lowWords: true, control: control, partnerThread: threads > 1)
            referenceSeconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            if D.self == Double.self {
                try riskPass(DoubleDouble.self, orbit: finer, critical: nil, epsilon: settings.blaEpsilon)
            } else {
                try riskPass(DoubleDoubleExp.self, orbit: finer, critical: nil, epsilon: settings.blaEpsilon)
            }
        }
        // MPFR last, within a budget: at 1e-22522 one pixel is 10^6 steps of ~400 us each.
        var unsettledPixels = 0
        let mpfrSeconds = Double(sensitivePixels.count) * Double(location.maxIterations) * stepSeconds
        if !sensitivePixels.isEmpty && settings.exactSensitivePixels && mpfrSeconds > settings.mpfrBudgetSeconds {
            unsettledPixels = sensitivePixels.count
            sensitivePixels = []
        }
        if !sensitivePixels.isEmpty && settings.exactSensitivePixels {
            if control?.isCancelled == true { throw RenderError.cancelled }
            let kernel = MPFRPixelKernel(viewport: viewport, family: location.family, maxIterations: location.maxIterations, subset: sensitivePixels)
            Renderer.fill(&field, kernel: kernel, count: sensitivePixels.count, tilePixels: 4, threads: threads, control: nil,
                          order: renderSettings.tileOrder)
        }
        if !renderSettings.extras.isEmpty { field.extras = extrasField }
        trace.mark("passes for pixels at risk")
        return PerturbationReport(
            deltaType: D.self == Double.self ? .double : (D.self == FloatExp.self ? .floatExp : .doubleDouble), glitchMode: settings.glitchMode,
            precisionBits: precision.bits, references: references, referenceLength: primary.count,
            referenceEscaped: primary.escaped, glitchedPixels: firstPassGlitched, uncorrectedPixels: glitched.count,
            referenceSeconds: referenceSeconds, fineBLAPixels: fineBLAPixels, doubleDoublePixels: doubleDoublePixels,
            finerOrbitPixels: finerOrbitPixels, reiteratedPixels: settings.exactSensitivePixels ? sensitivePixels.count : 0, unsettledPixels: unsettledPixels,
            blaSeconds: blaSeconds, loopSteps: loopSteps.reduce(0) { $0 + Int($1) }, blaSteps: blaSteps.reduce(0) { $0 + Int($1) })
    }

    /// BLA's epsilon for the second look at pixels at risk: Double's rounding level.
    static let fineBLAEpsilon = 0x1p-53

    /// Whether the orbit of 0 under z^2 + c leaves |z| <= 2 within `limit` steps (Double is
    /// enough to choose a delta type).
    static func criticalOrbitEscapes(re: String, im: String, within limit: Int) -> Bool {
        guard let cr = Double(re), let ci = Double(im) else { return false }
        var x = 0.0, y = 0.0
        for _ in 0..<min(limit, 100_000) {
            (x, y) = (x * x - y * y + cr, 2 * x * y + ci)
            if x * x + y * y > 4 { return true }
        }
        return false
    }

    /// The largest 4-connected group among the flagged pixels `glitched`.
    static func largestGroup(_ glitched: [Int], flags: [UInt8], width: Int, height: Int) -> [Int] {
        var seen = Set<Int>()
        var best: [Int] = []
        for startPixel in glitched where !seen.contains(startPixel) {
            var group: [Int] = []
            var stack = [startPixel]
            seen.insert(startPixel)
            while let p = stack.popLast() {
                group.append(p)
                let x = p % width, y = p / width
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] where nx >= 0 && ny >= 0 && nx < width && ny < height {
                    let q = ny * width + nx
                    if flags[q] != 0 && !seen.contains(q) {
                        seen.insert(q)
                        stack.append(q)
                    }
                }
            }
            if group.count > best.count { best = group }
        }
        return best
    }
}

/// Orbits computed on several threads, in order, with the first error.
private final class OrbitResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<ReferenceOrbit, any Error>?]

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func set(_ k: Int, _ r: Result<ReferenceOrbit, any Error>) {
        lock.lock()
        results[k] = r
        lock.unlock()
    }

    func values() throws -> [ReferenceOrbit] { try results.map { try $0!.get() } }
}
