import ArbitraryPrecision
internal import CMPFR
import FractalNumerics

/// Finding minibrots (Documentation/Design.md section 7; Documentation/Finding.md): the period of the
/// dominant feature near a point, its nucleus by Newton's method in MPFR, and its size;
/// and a descent that repeats this to reach a chosen depth (auto-zoom). Mandelbrot only
/// (z^2 + c).
public enum MinibrotFinder {
    /// A minibrot: its nucleus (z_p(c) = 0), period p and size estimate.
    public struct Minibrot: Sendable {
        /// The nucleus c, where z_p(c) = 0, at the precision Newton's method reached it in.
        public let nucleus: BigComplex
        /// The period p: the nucleus's orbit returns to 0 after p steps.
        public let period: Int
        /// |size|: the minibrot is about the whole set scaled by it (Hunt and Ott 1997,
        /// Heiland-Allen's estimate: 1 / (b l^2)); a view of radius 4 |size| shows it whole.
        public let size: FloatExp
        /// The argument of the complex size estimate: how the minibrot is turned.
        public let orientation: Double
        /// Newton steps taken.
        public let newtonSteps: Int
        /// |z_p(nucleus)| at the nucleus's precision.
        public let residual: FloatExp
        /// |z_p / z_p'| there: how far Newton would still move it (below the precision's ulp
        /// for a converged nucleus).
        public let newtonStep: FloatExp
    }

    /// The period of the dominant feature within `radius` of `point`: the first n for which
    /// the disc's first-order image, z_n(point) + dz_n/dc (c - point), contains 0, i.e.
    /// |z_n| < |dz_n/dc| radius (Newton's step for z_n from `point` lands in the disc). The
    /// conservative ball method of Documentation/Design.md section 7 (r(n+1) = (|z| + r)^2 - |z|^2 + r0) answers
    /// too early: from the Seahorse preset its periods' nuclei lay 5 to 80 radii away.
    /// nil when the orbit escapes first or no period up to `maxPeriod` qualifies.
    public static func period(
        near point: BigComplex, radius: FloatExp, maxPeriod: Int, precision: Precision, control: RenderControl? = nil
    ) -> Int? {
        let orbit = DerivativeOrbit(c: point, precision: precision)
        let rho2 = radius * radius
        for n in 1...Swift.max(1, maxPeriod) {
            if n & 255 == 0, control?.isCancelled == true { return nil }
            orbit.step()
            let z2 = orbit.zSquared, d2 = orbit.derivativeSquared
            if z2 < d2 * rho2 { return n }
            if FloatExp(1e8) < z2 { return nil }
        }
        return nil
    }

    /// The nucleus of period `period` nearest `start` by Newton's method, c <- c - z_p / z_p',
    /// until the step is below 2^-(precision - 16) (relative to max(1, |c|)), or nil when it
    /// does not settle within `maxSteps`.
    public static func nucleus(
        from start: BigComplex, period: Int, precision: Precision, maxSteps: Int = 64, control: RenderControl? = nil
    ) -> (BigComplex, Int)? {
        let orbit = DerivativeOrbit(c: start, precision: precision)
        let ws = orbit.ws
        let (zr, zi, cr, ci, t1, t2, t3) = (ws[0], ws[1], ws[2], ws[3], ws[4], ws[5], ws[6])
        let (dr, di, qr, qi) = (orbit.dr, orbit.di, ws[DerivativeOrbit.q], ws[DerivativeOrbit.q + 1])
        guard period >= 1 else { return nil }
        let tolerance = FloatExp(significand: 1, exponent: -(precision.bits - 16))
        for k in 1...Swift.max(1, maxSteps) {
            orbit.restart()
            for j in 0..<period {
                if j & 1023 == 1023, control?.isCancelled == true { return nil }
                orbit.step()
            }
            // q = z / dz.
            let d2 = orbit.derivativeSquared
            guard !d2.isZero && d2.isFinite else { return nil }
            mpfr_sqr(t1, dr, MPFR_RNDN)
            mpfr_fma(t1, di, di, t1, MPFR_RNDN)  // |dz|^2
            mpfr_mul(t2, zr, dr, MPFR_RNDN)
            mpfr_fma(t2, zi, di, t2, MPFR_RNDN)  // re(z conj dz)
            mpfr_mul(t3, zi, dr, MPFR_RNDN)
            mpfr_fms(t3, zr, di, t3, MPFR_RNDN)  // zr di - zi dr = -im(z conj dz)
            mpfr_div(qr, t2, t1, MPFR_RNDN)
            mpfr_div(qi, t3, t1, MPFR_RNDN)
            mpfr_sub(cr, cr, qr, MPFR_RNDN)
            mpfr_add(ci, ci, qi, MPFR_RNDN)  // c - q, with im(q) = -t3 / |dz|^2
            let stepSize = DerivativeOrbit.magnitudeSquared(qr, qi)
            let scale = Swift.max(FloatExp(1), DerivativeOrbit.magnitudeSquared(cr, ci))
            guard stepSize.isFinite else { return nil }
            if stepSize < tolerance * tolerance * scale {
                return (BigComplex(ws.value(2), ws.value(3)), k)
            }
        }
        return nil
    }

    /// |z_p(c)| and |z_p(c) / z_p'(c)|: how close `c` is to a nucleus of period `period` (a
    /// period below 1 takes no step: z_0 = 0).
    public static func residual(_ c: BigComplex, period: Int) -> (FloatExp, FloatExp) {
        let orbit = DerivativeOrbit(c: c, precision: c.precision)
        for _ in 0..<Swift.max(0, period) { orbit.step() }
        let z = FloatExp.complexMagnitude(DerivativeOrbit.floatExp(orbit.ws[0]), DerivativeOrbit.floatExp(orbit.ws[1]))
        let d = FloatExp.complexMagnitude(DerivativeOrbit.floatExp(orbit.dr), DerivativeOrbit.floatExp(orbit.di))
        return (z, d.isZero ? FloatExp(Double.infinity) : z / d)
    }

    /// The size estimate of the minibrot with nucleus `c` and period `period`: with z_j its
    /// orbit, l = prod_{j=1}^{p-1} 2 z_j and b = 1 + sum_j 1 / (prod_{k<=j} 2 z_k), size =
    /// 1 / (b l^2) (complex; its argument is the minibrot's orientation).
    public static func size(nucleus c: BigComplex, period: Int) -> Complex<FloatExp> {
        var z = BigComplex(precision: c.precision)
        let low = Precision(bits: 64)
        var l = BigComplex(BigFloat(1, precision: low), BigFloat(0, precision: low))
        var b = l
        for _ in 1..<Swift.max(1, period) {
            z = z.squared + c
            let zl = z.rounded(to: low)
            l = BigComplex(l.re.timesPowerOfTwo(1), l.im.timesPowerOfTwo(1)) * zl
            b = b + BigComplex(BigFloat(1, precision: low), BigFloat(0, precision: low)) / l
        }
        let s = BigComplex(BigFloat(1, precision: low), BigFloat(0, precision: low)) / (b * l * l)
        return Complex(s.re.floatExpValue, s.im.floatExpValue)
    }

    /// The precision a search near `point` within `radius` takes: the point's, and 96 bits below
    /// the radius (nil for a radius that is not positive and finite, or too small for MPFR).
    static func searchPrecision(_ point: BigComplex, _ radius: FloatExp) -> Precision? {
        guard radius.isFinite, radius.significand > 0, radius.exponent > -(Precision.maximum.bits - 96) else {
            return nil
        }
        return Precision(bits: Swift.max(point.precision.bits, -radius.exponent + 96, 128))
    }

    /// A minibrot near `point`: the period within `radius`, Newton from `point`; when the
    /// nucleus lands outside the disc, the radius is halved (a smaller disc, a feature that
    /// dominates closer to the point), up to `attempts` times.
    public static func find(
        near point: BigComplex, radius: FloatExp, maxPeriod: Int = 1_000_000, attempts: Int = 30,
        control: RenderControl? = nil
    ) -> Minibrot? {
        var rho = radius
        guard let precision = searchPrecision(point, radius) else { return nil }
        let start = point.rounded(to: precision)
        for _ in 0..<Swift.max(0, attempts) {
            guard let p = period(near: start, radius: rho, maxPeriod: maxPeriod, precision: precision, control: control)
            else {
                return nil
            }
            if let m = minibrot(period: p, near: start, radius: rho, precision: precision, control: control).minibrot {
                return m
            }
            rho = rho * FloatExp(0.5)
        }
        return nil
    }

    /// What `minibrot(period:near:radius:)` found.
    public enum Search: Sendable {
        /// A minibrot whose nucleus lies within the disc.
        case found(Minibrot)
        /// Newton's method did not settle for this period.
        case notConverged(period: Int)
        /// The nucleus lay outside the disc.
        case outside(period: Int)

        /// The minibrot for `found`, else nil.
        public var minibrot: Minibrot? {
            if case .found(let m) = self { return m }
            return nil
        }
    }

    /// The minibrot of period `period` whose nucleus Newton's method reaches from `point`
    /// (at `precision`, by default the one `find` takes for `radius`), if it lies within
    /// `radius` of it.
    public static func minibrot(
        period p: Int, near point: BigComplex, radius rho: FloatExp, precision: Precision? = nil,
        control: RenderControl? = nil
    ) -> Search {
        guard p >= 1, let precision = precision ?? searchPrecision(point, rho) else {
            return .notConverged(period: p)
        }
        let start = point.rounded(to: precision)
        guard var (c, steps) = nucleus(from: start, period: p, precision: precision, control: control) else {
            return .notConverged(period: p)
        }
        let dr = (c.re - start.re).floatExpValue, di = (c.im - start.im).floatExpValue
        guard !(rho * rho < dr * dr + di * di) else { return .outside(period: p) }
        var s = size(nucleus: c, period: p)
        var magnitude = FloatExp.complexMagnitude(s.re, s.im)
        // The nucleus to 96 bits below the minibrot's size: polish it at that precision
        // (Newton converges quadratically from here).
        let needed = -magnitude.exponent + 96
        if needed > precision.bits {
            let fine = Precision(bits: needed)
            guard
                let (polished, more) = nucleus(from: c.rounded(to: fine), period: p, precision: fine, control: control)
            else {
                return .notConverged(period: p)
            }
            c = polished
            steps += more
            s = size(nucleus: c, period: p)
            magnitude = FloatExp.complexMagnitude(s.re, s.im)
        }
        let (r, d) = residual(c, period: p)
        let orientation = Math.atan2((s.im / magnitude).doubleValue, (s.re / magnitude).doubleValue)
        return .found(
            Minibrot(
                nucleus: c, period: p, size: magnitude, orientation: orientation, newtonSteps: steps, residual: r,
                newtonStep: d))
    }

    /// One level of a descent: the minibrot found and the view the descent moved to.
    public struct Level: Sendable {
        /// The minibrot found at this level.
        public let minibrot: Minibrot
        /// The radius of the view in which it was looked for.
        public let viewRadius: FloatExp
    }

    /// An automatic deep zoom: a minibrot near `center` within `radius`, then, level by level,
    /// the view zoomed `fraction` of the way (in log radius) from the current radius to the
    /// minibrot's 4 |size|, and in it the next minibrot: around the current one at that
    /// distance (and at 1/2 and 1/4 of it), in 8 directions turned with the minibrot's
    /// orientation, the first with a higher period and under 1/100 of its size. Stops when a
    /// minibrot's 4 |size| is below `target` (its view: `location(of:iterations:name:)`). nil when no
    /// minibrot is found at the start; a shorter list when a level finds none (the last one
    /// is then the deepest found).
    public static func descend(
        from center: BigComplex, radius: FloatExp, to target: FloatExp, fraction: Double = 0.5,
        maxLevels: Int = 64, control: RenderControl? = nil, levelDone: (Level) -> Void = { _ in }
    ) -> [Level]? {
        guard fraction.isFinite, fraction > 0, fraction <= 1,
            var current = find(near: center, radius: radius, control: control)
        else {
            return nil
        }
        var viewRadius = radius
        var levels = [Level(minibrot: current, viewRadius: viewRadius)]
        levelDone(levels[0])
        for _ in 0..<Swift.max(0, maxLevels) where control?.isCancelled != true {
            let four = current.size * FloatExp(4)
            if four < target { break }
            let log2r = (1 - fraction) * viewRadius.log2Magnitude + fraction * four.log2Magnitude
            let whole = log2r.rounded(.down)
            let next = FloatExp(significand: Math.pow(2, log2r - whole), exponent: Int(whole))
            var found: Minibrot?
            search: for ring in 0..<3 {
                let distance = next * FloatExp(Math.pow(0.5, Double(ring)))
                for k in 0..<8 {
                    let angle = current.orientation + 2 * Double.pi * Double(k) / 8
                    guard let precision = searchPrecision(current.nucleus, distance) else { continue }
                    let dx = BigFloat(distance * FloatExp(Math.cos(angle)), precision: precision)
                    let dy = BigFloat(distance * FloatExp(Math.sin(angle)), precision: precision)
                    let probe = BigComplex(
                        current.nucleus.re.rounded(to: precision) + dx, current.nucleus.im.rounded(to: precision) + dy)
                    if let m = find(near: probe, radius: distance * FloatExp(0.5), control: control),
                        m.period > current.period, m.size < current.size * FloatExp(0.01)
                    {
                        found = m
                        break search
                    }
                }
            }
            guard let m = found else { break }
            current = m
            viewRadius = next
            levels.append(Level(minibrot: m, viewRadius: next))
            levelDone(levels.last!)
        }
        return levels
    }

    /// A view of `m`: its nucleus at the center, radius 4 |size| (the whole minibrot).
    public static func viewRadius(of m: Minibrot) -> FloatExp { m.size * FloatExp(4) }

    /// The location of a view of `m`: its nucleus (to 20 digits below the radius), radius
    /// 4 |size|, and `iterations` (at least 100 periods: the minibrot's surroundings escape
    /// after multiples of its period).
    public static func location(of m: Minibrot, iterations: Int, name: String? = nil) -> Location {
        let radius = viewRadius(of: m)
        let digits = Int(Double(-radius.exponent) * 0.30103) + 20
        let r = BigFloat(radius, precision: Precision(bits: 64)).decimalString(significantDigits: 6)
        return Location(
            name: name, family: .mandelbrot, centerRe: m.nucleus.re.decimalString(significantDigits: digits),
            centerIm: m.nucleus.im.decimalString(significantDigits: digits), radius: r,
            maxIterations: Swift.min(Location.maximumIterations, Swift.max(iterations, 100 * m.period)))
    }
}

/// z, c and dz/dc of one orbit of z^2 + c in MPFR registers: `MPFRStep`'s layout (z at 0
/// and 1, c at 2 and 3, scratch 4 to 6), then dz/dc at `MPFRStep.firstFree` and the next, then
/// two registers for Newton's step (`q`). z and dz/dc start at 0.
final class DerivativeOrbit {
    let ws: MPFRWorkspace
    let dr: UnsafeMutablePointer<__mpfr_struct>
    let di: UnsafeMutablePointer<__mpfr_struct>
    static let q = MPFRStep.firstFree + 2

    init(c: BigComplex, precision: Precision) {
        ws = MPFRWorkspace(count: DerivativeOrbit.q + 2, precision: precision)
        ws.set(2, c.re)
        ws.set(3, c.im)
        dr = ws[MPFRStep.firstFree]
        di = ws[MPFRStep.firstFree + 1]
    }

    /// z = dz/dc = 0 again (c as it is now).
    func restart() {
        for r in [ws[0], ws[1], dr, di] { mpfr_set_zero(r, 1) }
    }

    /// dz/dc <- 2 z dz/dc + 1 (from the old z), then z <- z^2 + c by `MPFRStep`.
    @inline(__always)
    func step() {
        let x = ws[0], y = ws[1], t1 = ws[4], t2 = ws[5]
        mpfr_mul(t1, x, dr, MPFR_RNDN)
        mpfr_fms(t1, y, di, t1, MPFR_RNDN)  // y di - x dr
        mpfr_mul(t2, x, di, MPFR_RNDN)
        mpfr_fma(t2, y, dr, t2, MPFR_RNDN)  // x di + y dr
        mpfr_mul_si(t1, t1, -2, MPFR_RNDN)
        mpfr_add_si(dr, t1, 1, MPFR_RNDN)
        mpfr_mul_2si(di, t2, 1, MPFR_RNDN)
        MPFRStep.zPowerPlusC(ws, power: 2)
    }

    var zSquared: FloatExp { DerivativeOrbit.magnitudeSquared(ws[0], ws[1]) }
    var derivativeSquared: FloatExp { DerivativeOrbit.magnitudeSquared(dr, di) }

    static func floatExp(_ a: UnsafeMutablePointer<__mpfr_struct>) -> FloatExp {
        var e = 0
        let d = mpfr_get_d_2exp(&e, a, MPFR_RNDN)
        return FloatExp(significand: d, exponent: e)
    }

    static func magnitudeSquared(_ a: UnsafeMutablePointer<__mpfr_struct>, _ b: UnsafeMutablePointer<__mpfr_struct>)
        -> FloatExp
    {
        let x = floatExp(a), y = floatExp(b)
        return x * x + y * y
    }
}

extension MinibrotFinder {
    /// `find(near:radius:maxPeriod:attempts:control:)` for async code: on a thread of its own,
    /// stopped when the calling Task is cancelled (`CancellationError`; see
    /// `RenderControl.run(with:_:)`). The blocking form returns nil when its control is cancelled.
    public static func find(
        near point: BigComplex, radius: FloatExp, maxPeriod: Int = 1_000_000, attempts: Int = 30,
        control: RenderControl? = nil
    ) async throws -> Minibrot? {
        try await RenderControl.run(with: control) { control in
            let found = find(near: point, radius: radius, maxPeriod: maxPeriod, attempts: attempts, control: control)
            if control.isCancelled { throw RenderError.cancelled }
            return found
        }
    }

    /// `descend(from:radius:to:fraction:maxLevels:control:levelDone:)` for async code: on a
    /// thread of its own, stopped when the calling Task is cancelled (`CancellationError`).
    public static func descend(
        from center: BigComplex, radius: FloatExp, to target: FloatExp, fraction: Double = 0.5,
        maxLevels: Int = 64, control: RenderControl? = nil, levelDone: @escaping @Sendable (Level) -> Void = { _ in }
    ) async throws -> [Level]? {
        try await RenderControl.run(with: control) { control in
            let levels = descend(
                from: center, radius: radius, to: target, fraction: fraction, maxLevels: maxLevels, control: control,
                levelDone: levelDone)
            if control.isCancelled { throw RenderError.cancelled }
            return levels
        }
    }
}
