import Dispatch
import FractalNumerics

// Bilinear approximation (BLA) of perturbation steps (Zhuoran, 2021; Fraktaler-3's README;
// mathr.co.uk deep-zoom notes; Documentation/Design.md section 6).
//
// A step of length l from reference index m maps dz(m) to dz(m + l) = A dz(m) + B dc, valid
// while |dz(m)| < radius. Single step at m (z^2 + c): A = 2 Z(m), B = 1 (0 for Julia), and
// radius = max(0, eps |A| - |B| |dc|max / |A|): there the neglected dz^2 is below eps |A dz|.
// z^p + c: A = p Z^(p-1) and eps |A| becomes 2 eps |Z| / (p - 1) (Documentation/Perturbation.md).
// Merging x then y: A = Ay Ax, B = Ay Bx + By, radius = max(0, min(Rx, (Ry - |Bx| |dc|max) / |Ax|)).

extension Complex where T: DeltaScalar {
    /// |z|^2 in FloatExp, exact in range at any depth (`DeltaScalar.floatExpLengthSquared`).
    @inlinable package var floatExpLengthSquared: FloatExp { T.floatExpLengthSquared(re, im) }
}

/// One bilinear step, in the delta type D (FloatExp past Double's range: A and the radius
/// of a long step at 1e-1000 are far outside it).
@usableFromInline package struct BLAStep<D: DeltaScalar>: Sendable {
    /// A, the coefficient of dz: the step maps dz to A dz + B dc.
    @usableFromInline package var a: Complex<D>
    /// B, the coefficient of dc (zero for Julia).
    @usableFromInline package var b: Complex<D>
    /// The validity radius: the step applies while |dz| < radius (zero: never).
    @usableFromInline package var radius: D
    /// |A|^2 = stretchSignificand * 2^stretchExponent: how much the step stretches
    /// |dz/dc|^2 (the precision estimate), exact in range at any depth.
    @usableFromInline package var stretchSignificand: Double
    /// The binary exponent of |A|^2 (see `stretchSignificand`).
    @usableFromInline package var stretchExponent: Int
    /// 1 / radius^2, for the step's truncation estimate (|dz| / radius)^2 without a division.
    @usableFromInline package var inverseRadiusSquared: D

    /// A step dz -> `a` dz + `b` dc valid while |dz| < `radius`; computes the derived fields
    /// (`inverseRadiusSquared`, zero for a zero radius, and |A|^2's parts).
    @inlinable
    package init(a: Complex<D>, b: Complex<D>, radius: D) {
        self.a = a
        self.b = b
        self.radius = radius
        inverseRadiusSquared = radius > .zero ? D.one / (radius * radius) : .zero
        (stretchSignificand, stretchExponent) = a.floatExpLengthSquared.parts
    }

    /// dz after the step.
    @inlinable @inline(__always)
    package func apply(_ dz: Complex<D>, _ dc: Complex<D>) -> Complex<D> { a * dz + b * dc }

    /// `self` followed by `next`.
    @inlinable
    package func then(_ next: BLAStep, dcMax: D) -> BLAStep {
        let ax = D.complexMagnitude(a.re, a.im), bx = D.complexMagnitude(b.re, b.im)
        let reach = (next.radius - bx * dcMax) / ax
        let radius = reach < self.radius ? reach : self.radius
        return BLAStep(a: next.a * a, b: next.a * b + next.b, radius: BLAStep.valid(radius))
    }

    /// `r` if it is a positive finite radius, else 0 (overflowed A, a zero Z, a step that
    /// is never valid).
    @inlinable
    static func valid(_ r: D) -> D {
        r.leadingDouble.isFinite && r > .zero ? r : .zero
    }
}

/// BLA steps for a reference orbit: level k holds steps of length 2^k, entry i of level k
/// starting at reference index 1 + i 2^k (index 0 always takes a real step: Z(0) = 0 makes
/// the Mandelbrot step nonlinear there). All levels lie in one array.
@usableFromInline package struct ApproximationTable<D: DeltaScalar>: Sendable {
    /// Level 0, then level 1, ...
    @usableFromInline package let steps: [BLAStep<D>]
    /// The steps' radii alone, in the same order: the lookup reads one per level, and a
    /// compact array keeps those reads in cache (8 bytes an entry for Double, not 56).
    @usableFromInline package let radii: [D]
    /// Level k is `steps[levelStarts[k] ..< levelStarts[k + 1]]`.
    @usableFromInline package let levelStarts: [Int]
    /// The relative truncation tolerance the steps were built for: a step's dropped terms stay
    /// below about epsilon times its kept ones.
    @usableFromInline package let epsilon: Double
    /// The bound on |dc| over the pixels that use the table, which the radii allow for.
    @usableFromInline package let dcMax: D
    /// Linear approximation with period detection (`LATable`): tried first where a pixel is at
    /// one of its entries' starts; between them the BLA levels (if any) take the pixel at most
    /// to the next start.
    @usableFromInline package let periods: LATable<D>?

    /// The number of BLA levels (0 for a table that holds LA entries alone).
    @usableFromInline package var levelCount: Int { levelStarts.count - 1 }
    /// The steps of level k (length 2^k each), entry i starting at reference index 1 + i 2^k;
    /// `k` must be below `levelCount`.
    @usableFromInline package func level(_ k: Int) -> ArraySlice<BLAStep<D>> {
        steps[levelStarts[k]..<levelStarts[k + 1]]
    }

    /// Entries of a level below this many are merged on one thread.
    static var parallelThreshold: Int { 1 << 14 }

    /// `orbit` = Z(0) ... Z(M); `dcMax` bounds |dc| over the pixels that use the table;
    /// `addsDC` is false for Julia (B = 0). A single step that could carry a pixel past
    /// |z| = 2 is never valid, so no step jumps over a pixel's n2 escape.
    @usableFromInline package init(
        orbit: [Complex<D>], dcMax: D, epsilon: Double, addsDC: Bool = true, power: Int = 2,
        escapeGaps: [Int: FloatExp] = [:], threads: Int = 1
    ) {
        self.init(
            orbit: orbit, dcMax: dcMax, epsilon: epsilon, addsDC: addsDC, power: power, escapeGaps: escapeGaps,
            threads: threads, method: .bla, linear: nil)
    }

    /// With `method` `.linear` or `.both`, `linear` holds the LA entries (`LATable`).
    @usableFromInline package init(
        orbit: [Complex<D>], dcMax: D, epsilon: Double, addsDC: Bool = true, power: Int = 2,
        escapeGaps: [Int: FloatExp] = [:], threads: Int = 1, method: ApproximationMethod, linear: LATable<D>?
    ) {
        self.epsilon = epsilon
        self.dcMax = dcMax
        periods = method == .bla ? nil : linear
        let singles = method == .linear ? 0 : Swift.max(0, orbit.count - 2)
        var starts = [0]
        var size = singles
        while size > 0 {
            starts.append(starts.last! + size)
            size /= 2
        }
        let total = starts.last!
        let eps = D(epsilon)
        let b = Complex<D>(addsDC ? D.one : .zero, .zero)
        let threads = Swift.max(1, threads)
        let bounds = starts
        // No levels (LA alone): an empty array without `unsafeUninitializedCapacity`, which for
        // a capacity of 0 sets the count of the runtime's one shared empty array (a write the
        // Thread Sanitizer reports between threads that build tables at once).
        steps =
            total == 0
            ? []
            : orbit.withUnsafeBufferPointer { z in
                [BLAStep<D>](unsafeUninitializedCapacity: total) { buffer, initialized in
                    let out = SendablePointer(buffer.baseAddress!)
                    let zp = SendablePointer(UnsafeMutablePointer(mutating: z.baseAddress!))
                    // Level 0: single steps at m = 1 ... M - 1.
                    Parallel.forEachChunk(singles, threads: threads, minimumCount: ApproximationTable.parallelThreshold)
                    {
                        range in
                        for j in range {
                            let zm = zp.pointer[j + 1]
                            // A = p Z^(p-1); the nonlinear terms stay below eps |A dz| while
                            // |dz| < 2 eps |Z| / (p - 1) (= eps |A| for p = 2; Perturbation.md).
                            var a = Complex(zm.re.doubled, zm.im.doubled)
                            var linearRadius = eps * D.complexMagnitude(a.re, a.im)
                            if power > 2 {
                                var zp1 = zm
                                for _ in 2..<power { zp1 = zp1 * zm }
                                a = zp1 * D(Double(power))
                                linearRadius = eps * D.complexMagnitude(zm.re, zm.im).scaled(by: 2 / Double(power - 1))
                            }
                            let am = D.complexMagnitude(a.re, a.im)
                            // Inside the radius |dz(m+1)| < |A| R + |dc| <= |A| R0 (= reach / 2): the
                            // step cannot carry a pixel past |z| = 2 unless |Z(m+1)| is within that
                            // of 2. Where Double cannot tell (|Z| = 2 to 2^-40), the orbit's exact
                            // gap 4 - |Z|^2 bounds the radius instead: |z|^2 - |Z|^2 <=
                            // 2 |Z| |dz| + |dz|^2 < 5 |dz(m+1)| stays below the gap while
                            // |A| R + |dc| <= gap / 5.
                            let next = zp.pointer[j + 2]
                            let x = next.re.leadingDouble, y = next.im.leadingDouble
                            let reach = 2 * (am * linearRadius).leadingDouble
                            var radius = BLAStep<D>.valid(linearRadius - dcMax / am)
                            if (x * x + y * y).squareRoot() + reach >= 2 - 0x1p-40 {
                                if let gap = escapeGaps[j + 2] {
                                    let bound = BLAStep<D>.valid((D(gap).scaled(by: 0.2) - dcMax) / am)
                                    if bound < radius { radius = bound }
                                } else {
                                    radius = .zero
                                }
                            }
                            (out.pointer + j).initialize(to: BLAStep(a: a, b: b, radius: radius))
                        }
                    }
                    // Level k from level k - 1, pairwise.
                    for k in 1..<Swift.max(1, bounds.count - 1) {
                        let from = bounds[k - 1], to = bounds[k]
                        Parallel.forEachChunk(
                            bounds[k + 1] - to, threads: threads, minimumCount: ApproximationTable.parallelThreshold
                        ) { range in
                            for i in range {
                                let x = out.pointer[from + 2 * i], y = out.pointer[from + 2 * i + 1]
                                (out.pointer + to + i).initialize(to: x.then(y, dcMax: dcMax))
                            }
                        }
                    }
                    initialized = total
                }
            }
        self.levelStarts = starts
        radii = steps.map(\.radius)
    }

    /// The longest step starting at reference index m (m >= 1) whose radius exceeds |dz|,
    /// with its length, if any.
    @usableFromInline package func longestStep(at m: Int, dz: Complex<D>) -> (step: BLAStep<D>, length: Int)? {
        withView { view in view.longestStep(at: m, dz: dz).map { (view[$0.index], $0.length) } }
    }

    /// (LA epsilon / epsilon)^2: an LA step's load in units of the table's epsilon (0 without LA).
    @usableFromInline package var laLoadScale: Double {
        periods.map { ($0.epsilon / epsilon) * ($0.epsilon / epsilon) } ?? 0
    }

    /// Calls `body` with a view of the table for a kernel's inner loop (no ARC there).
    @inlinable
    package func withView<R>(_ body: (BLAView<D>) -> R) -> R {
        func withPeriods(_ inner: (LAView<D>) -> R) -> R {
            guard let periods else { return inner(.none) }
            return periods.withView(inner)
        }
        return withPeriods { la in
            steps.withUnsafeBufferPointer { s in
                radii.withUnsafeBufferPointer { r in
                    levelStarts.withUnsafeBufferPointer { l in
                        if s.isEmpty {
                            return body(
                                BLAView(
                                    steps: nil, radii: nil, levelStarts: l.baseAddress!, levels: 0, epsilon: epsilon,
                                    la: la, laLoadScale: laLoadScale))
                        }
                        return body(
                            BLAView(
                                steps: s.baseAddress!, radii: r.baseAddress!, levelStarts: l.baseAddress!,
                                levels: levelCount, epsilon: epsilon, la: la, laLoadScale: laLoadScale))
                    }
                }
            }
        }
    }
}

/// Which approximation a table holds.
public enum ApproximationMethod: String, Sendable, CaseIterable {
    /// BLA levels only (Documentation/Design.md section 6).
    case bla
    /// Linear approximation with period detection only: plain steps between entry starts.
    case linear = "la"
    /// LA at entry starts, BLA between them.
    case both
}

/// A BLA table as raw pointers, valid inside `ApproximationTable.withView`.
@usableFromInline package struct BLAView<D: DeltaScalar> {
    @usableFromInline let steps: UnsafePointer<BLAStep<D>>?
    @usableFromInline let radii: UnsafePointer<D>?
    @usableFromInline let levelStarts: UnsafePointer<Int>
    @usableFromInline let levels: Int
    /// The table's epsilon: each step's relative truncation error is below it.
    @usableFromInline package let epsilon: Double
    /// The table's LA entries (empty: none).
    @usableFromInline package let la: LAView<D>
    /// (LA epsilon / epsilon)^2: an LA step's load in units of the table's epsilon.
    @usableFromInline package let laLoadScale: Double

    @inlinable
    init(
        steps: UnsafePointer<BLAStep<D>>?, radii: UnsafePointer<D>?, levelStarts: UnsafePointer<Int>, levels: Int,
        epsilon: Double, la: LAView<D> = .none, laLoadScale: Double = 0
    ) {
        self.laLoadScale = laLoadScale
        self.steps = steps
        self.radii = radii
        self.levelStarts = levelStarts
        self.levels = levels
        self.epsilon = epsilon
        self.la = la
    }

    /// A view with no steps (plain perturbation).
    @inlinable
    package static func none(_ dummy: UnsafePointer<Int>) -> BLAView {
        BLAView(steps: nil, radii: nil, levelStarts: dummy, levels: 0, epsilon: 0)
    }

    @inlinable
    package subscript(index: Int) -> BLAStep<D> { steps![index] }

    /// The longest valid step at reference index m, bottom up: a merged step's radius is at
    /// most that of its first half, which starts at the same index one level down, so the
    /// first invalid level ends the search.
    @inlinable @inline(__always)
    package func longestStep(at m: Int, dz: Complex<D>, maxLength: Int = .max) -> (index: Int, length: Int)? {
        guard let radii, m >= 1 else { return nil }
        let j = m - 1
        guard j < levelStarts[1], D.magnitude(dz.re, dz.im, isBelow: radii[j]) else { return nil }
        var best = j
        var k = 1
        while k < levels && j & ((1 &<< k) &- 1) == 0 && (1 &<< k) <= maxLength {
            let i = levelStarts[k] &+ (j &>> k)
            guard i < levelStarts[k + 1], D.magnitude(dz.re, dz.im, isBelow: radii[i]) else { break }
            best = i
            k += 1
        }
        return (best, 1 << (k - 1))
    }
}
