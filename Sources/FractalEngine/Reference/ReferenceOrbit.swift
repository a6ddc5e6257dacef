import ArbitraryPrecision
internal import CMPFR
import Foundation
import FractalNumerics

/// The orbit of one reference point, computed in MPFR and stored at low precision:
/// Z(0), Z(1), ..., Z(count - 1) as Doubles (and low words where asked), held compressed
/// without loss (`CompressedOrbit`, about 3 bytes a step against 16 or 32), with the few values
/// whose magnitude underflows Double (below 2^-1000) also kept as FloatExp.
///
/// Mandelbrot and Multibrot: Z(0) = 0, Z(m+1) = Z(m)^p + C. Julia: Z(0) = C (the reference
/// pixel), Z(m+1) = Z(m)^2 + c. The orbit stops after the first m with |Z(m)| > 2 or at the
/// iteration limit; `escaped` says which.
@usableFromInline package struct ReferenceOrbit: Sendable {
    /// The reference point C (Mandelbrot: the parameter; Julia: the starting point).
    @usableFromInline package let point: BigComplex
    /// The power p of Z^p + C (2 for Julia).
    @usableFromInline package let power: Int
    /// Julia's parameter c, or nil for Mandelbrot and Multibrot.
    @usableFromInline package let juliaC: BigComplex?
    /// The MPFR precision the orbit was computed at.
    @usableFromInline package let precision: Precision
    /// Z(m) rounded to Double, and with `lowWords: true` also the low words (Z - hi rounded
    /// to Double, so the orbit can be read as double-double), compressed.
    @usableFromInline package let compressed: CompressedOrbit
    /// Indices and exact values of the entries whose magnitude is below 2^-1000.
    @usableFromInline package let tiny: [Int: Complex<FloatExp>]
    /// 4 - |Z(m)|^2 from MPFR for the entries whose Double |Z|^2 lies within 2^-40 of 4
    /// (orbits near c = -2 sit at |Z| = 2 for thousands of steps): how far each is from
    /// escaping, which Double cannot tell, so BLA steps may pass them when their reach is
    /// smaller.
    @usableFromInline package let escapeGaps: [Int: FloatExp]
    /// Whether |Z(count - 1)| > 2.
    @usableFromInline package let escaped: Bool

    /// The number of stored values, Z(0) ... Z(count - 1).
    @usableFromInline package var count: Int { compressed.count }
    /// Whether the low words are kept.
    @usableFromInline package var hasLowWords: Bool { compressed.hasLowWords }
    /// The bytes the orbit's values take as held: the compressed steps and the tables.
    @usableFromInline package var byteCount: Int { compressed.byteCount + 40 * tiny.count + 24 * escapeGaps.count }

    /// Computes the orbit of `point` in MPFR, in place, up to `maxIterations` steps.
    ///
    /// `progress` is called with the fraction done every 4096 steps (every step from 8192
    /// bits); `isCancelled` is polled as often and stops the computation with
    /// `RenderError.cancelled`. An orbit that outgrows the machine's memory
    /// (`RenderPlan.maximumReferenceSteps`) stops with `RenderError.referenceTooLarge`.
    /// `threads`: how many threads the steps may share (`ReferenceThreading.choose` decides how
    /// many it takes at this precision); the orbit is the same bit for bit with any number.
    /// `threading` overrides that choice (benchmarks and tests; z^p + c with p > 2 is always
    /// serial).
    ///
    /// `watch`: the first period of the disc around `point` (`PeriodWatch`), found alongside;
    /// when it asks to stop there, the computation throws `PeriodWatch.Found`, or where it
    /// ends the orbit (`Found.ends`) returns the orbit up to that step.
    ///
    /// `device`: z^2 + c's steps on that device instead (`DeviceStep`), the same orbit bit for bit.
    /// `bytesPerStep`: what a step will cost the render that reads the orbit, for the memory
    /// check (`RenderPlan.bytesPerStep`).
    package static func compute(
        point: BigComplex, power: Int, juliaC: BigComplex?, maxIterations: Int, precision: Precision,
        lowWords: Bool = false, control: RenderControl? = nil, threads: Int = 1,
        threading: ReferenceThreading? = nil, watch: PeriodWatch? = nil, device: (any ReferenceStepDevice)? = nil,
        bytesPerStep: Int = RenderPlan.bytesPerReferenceStep
    ) throws -> ReferenceOrbit {
        let z0 = juliaC == nil ? BigComplex(precision: precision) : point
        let c = juliaC ?? point
        let run = Iteration(
            point: point, power: power, juliaC: juliaC, maxIterations: maxIterations, precision: precision,
            lowWords: lowWords, control: control, watch: watch, bytesPerStep: bytesPerStep)
        if let device, power == 2 {
            var step = try DeviceStep(device: device, z: z0, c: c, precision: precision, maxSteps: maxIterations)
            defer { step.stop() }
            return try run.orbit(&step)
        }
        let chosen = threading ?? ReferenceThreading.choose(bits: precision.bits, power: power, threads: threads)
        switch power == 2 ? chosen : .serial {
        case .serial:
            var step = SerialStep(z: z0, c: c, power: power, precision: precision)
            return try run.orbit(&step)
        case .pair:
            var step = PairStep(z: z0, c: c, precision: precision, lowWords: lowWords)
            defer { step.stop() }
            return try run.orbit(&step)
        case .team(let count):
            var step = TeamStep(z: z0, c: c, precision: precision, threads: Swift.max(count, 1))
            defer { step.stop() }
            return try run.orbit(&step)
        }
    }

    /// One orbit's loop, generic over how its steps are taken: the stores, the escape test
    /// (exact near |Z| = 2), the period watch, cancellation and progress.
    private struct Iteration {
        let point: BigComplex, power: Int, juliaC: BigComplex?, maxIterations: Int, precision: Precision
        let lowWords: Bool, control: RenderControl?, watch: PeriodWatch?, bytesPerStep: Int

        func orbit<S: ReferenceStep>(_ step: inout S) throws -> ReferenceOrbit {
            var watch = watch
            let scratch = MPFRWorkspace(count: 3, precision: precision)
            let t1 = scratch[0], t2 = scratch[1], r2 = scratch[2]
            let cc = juliaC ?? point
            var values = CompressedOrbit.Builder(
                c: Complex(cc.re.doubleDoubleValue, cc.im.doubleDoubleValue), power: power, lowWords: lowWords)
            var tiny: [Int: Complex<FloatExp>] = [:]
            var escapeGaps: [Int: FloatExp] = [:]
            var escaped = false
            let quick = precision.bits >= NearEscapeTest.fromBits ? NearEscapeTest(precision: precision) : nil

            /// Stores the step and returns its Doubles.
            func store(
                _ x: UnsafeMutablePointer<__mpfr_struct>, _ y: UnsafeMutablePointer<__mpfr_struct>,
                _ yRounded: (hi: Double, lo: Double)?
            ) -> (Double, Double) {
                let (a, aLow) = lowWords ? ReferenceOrbit.rounded(x, scratch: t1) : (mpfr_get_d(x, MPFR_RNDN), 0)
                let (b, bLow) =
                    yRounded.map { ($0.hi, lowWords ? $0.lo : 0) }
                    ?? (lowWords ? ReferenceOrbit.rounded(y, scratch: t1) : (mpfr_get_d(y, MPFR_RNDN), 0))
                values.append((a, b, aLow, bLow))
                if ReferenceOrbit.isTiny(a, nonzero: fathom_mpfr_zero_p(x) == 0)
                    || ReferenceOrbit.isTiny(b, nonzero: fathom_mpfr_zero_p(y) == 0)
                {
                    var ex = 0, ey = 0
                    let mx = mpfr_get_d_2exp(&ex, x, MPFR_RNDN), my = mpfr_get_d_2exp(&ey, y, MPFR_RNDN)
                    tiny[values.count - 1] = Complex(
                        FloatExp(normalizing: mx, ex), FloatExp(normalizing: my, ey))
                }
                return (a, b)
            }

            _ = store(step.x, step.y, step.storedY)
            // Polled every 4096 steps, every step from 8192 bits (a step then takes 20 us or more).
            let checkMask = precision.bits >= 8192 ? 0 : 4095
            let stepLimit = RenderPlan.maximumReferenceSteps(bytesPerStep: bytesPerStep)
            var m = 0
            while m < maxIterations {
                m += 1
                let a: Double, b: Double
                var deviceTest: DeviceOrbitStep.EscapeTest?
                var fromDevice = false
                if let v = try step.stored() {
                    values.append(lowWords ? v.values : (v.values.0, v.values.1, 0, 0))
                    (a, b) = (v.values.0, v.values.1)
                    // `store`'s tiny entries, from the device's significands and exponents.
                    if ReferenceOrbit.isTiny(a, nonzero: v.xNonzero) || ReferenceOrbit.isTiny(b, nonzero: v.yNonzero) {
                        tiny[values.count - 1] = Complex(v.x, v.y)
                    }
                    deviceTest = v.escape
                    fromDevice = true
                } else {
                    (a, b) = store(step.x, step.y, step.storedY)
                }
                // Where the watch ends the orbit, after this step's escape test (its gap kept, as
                // a longer orbit cut here by `limited(to:)` keeps it).
                var endsHere = false
                if var w = watch {
                    if let found = w.observe(m, tiny[m] ?? Complex(FloatExp(a), FloatExp(b))) {
                        guard found.ends else { throw found }
                        endsHere = true
                    }
                    watch = w.done ? nil : w
                }
                // |Z|^2 > 4, decided in Double unless close (then in MPFR).
                let approx = a * a + b * b
                if fromDevice && approx >= Escape.inner2 && deviceTest == nil {
                    throw RenderError.deviceOrbit("step \(m) is near |Z| = 2 without its escape test")
                }
                if approx > Escape.outer2
                    || (approx >= Escape.inner2
                        && {
                            // The device's test, else the one from Z's leading bits.
                            switch deviceTest ?? quick?.answer(step: m, step.x, step.y) {
                            case .escaped: return true
                            case .gap(let g):
                                escapeGaps[m] = g
                                return false
                            case nil: break
                            }
                            step.squares(t1, t2)
                            mpfr_add(r2, t1, t2, MPFR_RNDN)
                            if mpfr_cmp_d(r2, 4) > 0 { return true }
                            mpfr_d_sub(t1, 4, r2, MPFR_RNDN)
                            var e = 0
                            let g = mpfr_get_d_2exp(&e, t1, MPFR_RNDN)
                            escapeGaps[m] = FloatExp(normalizing: g, e)
                            return false
                        }())
                {
                    escaped = true
                    break
                }
                if endsHere { break }
                if m & checkMask == 0 {
                    // An orbit past the machine's memory stops with one line, not the OOM killer.
                    if m > stepLimit {
                        throw RenderError.referenceTooLarge(steps: m, memory: RenderPlan.physicalMemory)
                    }
                    if let control {
                        if control.isCancelled { throw RenderError.cancelled }
                        control.reportReference(Double(m) / Double(maxIterations))
                    }
                }
            }
            return ReferenceOrbit(
                point: point, power: power, juliaC: juliaC, precision: precision, compressed: values.orbit,
                tiny: tiny, escapeGaps: escapeGaps, escaped: escaped)
        }
    }

    /// v rounded to a Double and its low word (v - that, exact at v's precision, rounded):
    /// what the orbit stores of v (`scratch` at v's precision).
    static func rounded(_ v: UnsafePointer<__mpfr_struct>, scratch: UnsafeMutablePointer<__mpfr_struct>) -> (
        hi: Double, lo: Double
    ) {
        let hi = mpfr_get_d(v, MPFR_RNDN)
        mpfr_sub_d(scratch, v, hi, MPFR_RNDN)
        return (hi, mpfr_get_d(scratch, MPFR_RNDN))
    }

    /// Whether a value stored as `hi` is also kept exactly (`tiny`): below 2^-1000 Double
    /// loses bits (subnormals) or the value.
    static func isTiny(_ hi: Double, nonzero: Bool) -> Bool {
        hi != 0 && Swift.abs(hi) < 0x1p-1000 || (hi == 0 && nonzero)
    }

    init(
        point: BigComplex, power: Int, juliaC: BigComplex?, precision: Precision, compressed: CompressedOrbit,
        tiny: [Int: Complex<FloatExp>], escapeGaps: [Int: FloatExp] = [:], escaped: Bool
    ) {
        self.escapeGaps = escapeGaps
        self.compressed = compressed
        self.point = point
        self.power = power
        self.juliaC = juliaC
        self.precision = precision
        self.tiny = tiny
        self.escaped = escaped
    }

    /// The orbit in the delta type D, ready for a kernel: decoded in one pass.
    @usableFromInline package func values<D: DeltaScalar>(as _: D.Type) -> [Complex<D>] {
        var out = [Complex<D>]()
        out.reserveCapacity(count)
        let wide = D.significandBits > 53 && hasLowWords
        var tiny = TinySteps(self.tiny, from: 0)
        compressed.forEachStep { i, v in
            out.append(tiny.value(at: i) ?? Self.value(v, wide: wide))
            return true
        }
        return out
    }

    /// A step's value in D from its stored Doubles `v` (re, im, reLow, imLow), with their low
    /// words where `wide` (D holds more than 53 bits and the orbit keeps them); the tiny
    /// table's value instead where it holds the step (`TinySteps`).
    @inline(__always)
    static func value<D: DeltaScalar>(_ v: (Double, Double, Double, Double), wide: Bool) -> Complex<D> {
        if wide { return Complex(D(DoubleDouble(hi: v.0, lo: v.2)), D(DoubleDouble(hi: v.1, lo: v.3))) }
        return Complex(D(v.0), D(v.1))
    }

    /// The tiny table's steps in order, read by a walk that moves forward (no hashing a step).
    struct TinySteps {
        private let steps: [(Int, Complex<FloatExp>)]
        private var next: Int

        /// For a walk from step n.
        init(_ tiny: [Int: Complex<FloatExp>], from n: Int) {
            steps = tiny.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            var lo = 0, hi = steps.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if steps[mid].0 < n { lo = mid + 1 } else { hi = mid }
            }
            next = lo
        }

        /// The tiny table's value at step i in D, nil where it holds none; i never decreases.
        @inline(__always)
        mutating func value<D: DeltaScalar>(at i: Int) -> Complex<D>? {
            while next < steps.count && steps[next].0 < i { next += 1 }
            guard next < steps.count && steps[next].0 == i else { return nil }
            let t = steps[next].1
            return Complex(D(t.re), D(t.im))
        }
    }

    /// A reader of the orbit's values in D from step `n` on, one step at a time, decoding
    /// only what it reads.
    struct Reader<D: DeltaScalar> {
        private var cursor: CompressedOrbit.Cursor
        private var tiny: TinySteps
        private let wide: Bool

        init(_ orbit: ReferenceOrbit, at n: Int) {
            cursor = CompressedOrbit.Cursor(orbit: orbit.compressed, at: n)
            tiny = TinySteps(orbit.tiny, from: n)
            wide = D.significandBits > 53 && orbit.hasLowWords
        }

        /// The step the reader is at.
        var step: Int { cursor.step }

        /// Z(step) in D.
        var value: Complex<D> {
            mutating get { tiny.value(at: cursor.step) ?? ReferenceOrbit.value(cursor.value, wide: wide) }
        }

        /// To the next step (step + 1 < count).
        mutating func advance() { cursor.advance() }
    }
}

/// The period of the dominant feature of a disc around an orbit's point, found from the orbit
/// itself (`MinibrotFinder.period`'s test in FloatExp, no MPFR step of its own): the
/// first n with |Z(n)| < |dZ(n)/dc| radius, dZ/dc carried as dZ' = 2 Z dZ + 1 (z^2 + c), with
/// the first guess at its minibrot's size, 1 / (|l| |dZ(n)/dc|), l = prod_{j<n} 2 Z(j). Only
/// the first such n counts, and only up to `maxPeriod`. There the minibrot dominates when the
/// guess is at least 2^(minimumLog2Size - 2); `observe` then returns `Found` for Newton's
/// method (a period up to `maxNewtonPeriod`), else, as `ending` says, `Found` that ends the
/// orbit there (`ends`). The same values give the same answer whether the orbit is being
/// computed or was cached.
@usableFromInline package struct PeriodWatch: Sendable {
    /// Thrown by `ReferenceOrbit.compute` to stop at the period for Newton's method; or, with
    /// `ends`, where the orbit ends (`compute` returns its first period + 1 values, not
    /// escaped): the disc then holds a point whose orbit returns to 0 there, and pixels rebase
    /// onto the orbit's start at its end (exact at any reference).
    @usableFromInline package struct Found: Error {
        /// The period n found.
        @usableFromInline package let period: Int
        /// Whether the orbit ends at `period` (else `period` is for Newton's method).
        @usableFromInline package let ends: Bool
    }

    /// Where the orbit ends at the period rather than running on to its limit.
    @usableFromInline package enum Ending: Sendable {
        /// Never: the orbit runs on (or stops for Newton's method).
        case never
        /// Where a minibrot dominates but its period is past `maxNewtonPeriod`.
        case whereDominant
    }

    let radius2: FloatExp
    let maxPeriod: Int
    /// The log2 of the size from which a minibrot dominates: its size guess must reach 2^(`minimumLog2Size` - 2).
    @usableFromInline package let minimumLog2Size: Double
    /// The longest period returned for Newton's method (no limit by default); a longer one may end the orbit.
    @usableFromInline package let maxNewtonPeriod: Int
    /// Where the orbit ends at the period rather than running on: `never` by default.
    @usableFromInline package let ending: Ending
    var derivative = Complex(FloatExp(1), FloatExp.zero)
    var l2 = FloatExp(1)
    var done = false

    /// A watch for periods up to `maxPeriod` of the disc of `radius` around the orbit's point.
    @usableFromInline package init(
        radius: FloatExp, maxPeriod: Int, minimumLog2Size: Double, maxNewtonPeriod: Int = .max,
        ending: Ending = .never
    ) {
        radius2 = radius * radius
        self.maxPeriod = maxPeriod
        self.minimumLog2Size = minimumLog2Size
        self.maxNewtonPeriod = maxNewtonPeriod
        self.ending = ending
    }

    /// Z(n), n = 1, 2, ... in order: `Found` where the orbit should stop or end.
    @usableFromInline package mutating func observe(_ n: Int, _ z: Complex<FloatExp>) -> Found? {
        guard !done else { return nil }
        guard n <= maxPeriod else {
            done = true
            return nil
        }
        let z2 = z.floatExpLengthSquared, d2 = derivative.floatExpLengthSquared
        if z2 < d2 * radius2 {
            done = true
            let dominant = -0.5 * (l2 * d2).log2Magnitude >= minimumLog2Size - 2
            if dominant && n <= maxNewtonPeriod { return Found(period: n, ends: false) }
            switch ending {
            case .whereDominant: return dominant ? Found(period: n, ends: true) : nil
            case .never: return nil
            }
        }
        // dZ(n + 1)/dc = 2 Z(n) dZ(n)/dc + 1.
        let two = FloatExp(2)
        derivative = Complex(
            two * (z.re * derivative.re - z.im * derivative.im) + FloatExp(1),
            two * (z.re * derivative.im + z.im * derivative.re))
        l2 = l2 * z2 * FloatExp(4)
        return nil
    }

    /// The watch over an orbit already computed (a cached one): the same answer.
    @usableFromInline package func scan(_ orbit: ReferenceOrbit) -> Found? {
        var watch = self
        var found: Found?
        orbit.compressed.forEachStep { n, v in
            guard n > 0 else { return true }
            let z = orbit.tiny[n] ?? Complex(FloatExp(v.0), FloatExp(v.1))
            found = watch.observe(n, z)
            return found == nil && !watch.done
        }
        return found
    }
}
