import FractalNumerics

// Interior detection through the renormalized return map (Documentation/Perturbation.md,
// "Interior detection"; Design.md section 13 for what other renderers do and why a derivative
// test alone can call escaping pixels interior).
//
// Against a nucleus reference of one period N, the LA entry that spans the whole reference
// from Z(0) = 0 gives the pixel's period-N return map: F(w) = a w^2 + b + E(w) with a = zc,
// b = cc dc + Z(N), and |E(w)| <= eta_rel (|a w^2| + cc' |dc|) while |w|^2 < T and |dc| < TC,
// cc' >= |cc| the dc coefficient's size before any cancellation along the entry.
// In v = a w it reads G(v) = v^2 + c' + a E with c' = a b: the minibrot's own Mandelbrot map.
// Where c' lies in the main cardioid the model map has the attracting fixed point
// v* = (1 - sqrt(1 - 4 c')) / 2 with multiplier lambda = 2 v*, and on the disc D = B(v*, r)
// G(v* + h) - v* = lambda h + h^2 + a E lies within |lambda| r + r^2 + eta of v*, below r when
// r (1 - |lambda| - r) > eta: with eta < (1 - |lambda|)^2 / 4, r = 2 eta / (1 - |lambda|)
// does (about twice the smallest such radius; the entry must hold only out to |v*| + r). Then the true
// f_c^N maps the disc D / a strictly into itself, so it has an
// attracting fixed point there (Schwarz-Pick), f_c an attracting cycle, and by Fatou the
// orbit of 0 converges to it: c is interior, whatever the pixel's own orbit did so far.

/// The proof for one reference: what it needs of the spanning entry, in the delta type D.
@usableFromInline package struct InteriorTest<D: DeltaScalar>: Sendable {
    @usableFromInline let a: Complex<D>
    @usableFromInline let cc: Complex<D>
    @usableFromInline let end: Complex<D>
    /// |a| sqrt(T), less 2^-20 for rounding: the largest |v| inside the entry's validity.
    @usableFromInline let reach: Double
    @usableFromInline let dcThreshold: D
    /// |a| times |cc| without cancellation: each step's truncation is relative to its dc part's
    /// size, |a| cc' |dc| in v.
    @usableFromInline let dcScale: D
    /// eta_rel: 4 N eps, four times the truncation N linearized steps of relative error eps
    /// add up to.
    @usableFromInline let errorShare: Double

    /// The test for a reference orbit `orbit` of one period (Z(N) its end, near 0) and its LA
    /// table, if the table's chain at 0 holds an entry spanning the whole orbit. z^2 + c only.
    @usableFromInline package init?(table: LATable<D>, orbit: [Complex<D>]) {
        guard let offset = table.chainAt.first.map(Int.init), offset >= 0 else { return nil }
        let n = orbit.count - 1
        let topIndex = table.entries[offset].chainEnd - 1
        let top = table.entries[topIndex]
        guard top.length == n, top.threshold > .zero, top.dcThreshold > .zero else { return nil }
        a = top.zc
        cc = top.cc
        end = orbit[n]
        // sqrt(T) as FloatExp: the significand's root times 2^(e/2), e made even.
        let t = top.threshold.floatExpValue
        let odd = t.exponent & 1
        let root = FloatExp(
            significand: (t.significand * Double(1 << odd)).squareRoot(), exponent: (t.exponent - odd) / 2)
        let aMagnitude = D.complexMagnitude(top.zc.re, top.zc.im)
        reach = (aMagnitude.floatExpValue * root).doubleValue * (1 - 0x1p-20)
        dcThreshold = top.dcThreshold
        dcScale = aMagnitude * table.ccBounds[topIndex]
        errorShare = 4 * Double(n) * table.epsilon
    }

    /// The pixel offset dc whose renormalized parameter c' = a (cc dc + Z(N)) is `c`: where the
    /// minibrot's own Mandelbrot set lies in dc (its cusp at c = 1/4, its period-2 root at -3/4).
    @usableFromInline package func delta(renormalized c: Complex<Double>) -> Complex<D> {
        (Complex(D(c.re), D(c.im)) / a - end) / cc
    }

    /// Whether the pixel at dc provably never escapes.
    @inlinable
    package func proves(dc: Complex<D>) -> Bool {
        guard D.magnitude(dc.re, dc.im, isBelow: dcThreshold) else { return false }
        let constant = a * (cc * dc)
        let c = constant + a * end
        let cr = c.re.leadingDouble, ci = c.im.leadingDouble
        guard cr * cr + ci * ci < 4 else { return false }
        // The dc parts' size before any cancellation.
        let k = (dcScale * D.complexMagnitude(dc.re, dc.im)).leadingDouble
        /// The truncation of G at |v| <= s, plus a generous allowance for the rounding of c'
        /// and of the cycle's points and multiplier.
        func eta(_ s: Double) -> Double { errorShare * (s * s + k) + 0x1p-40 * (1 + s * s + k) }
        // The main cardioid: the fixed point v* = (1 - sqrt(1 - 4 c')) / 2, lambda = 2 v*.
        let (sr, si) = Self.squareRoot(1 - 4 * cr, -4 * ci)
        let lambda = Self.magnitude(1 - sr, -si)
        if lambda < 1 {
            // eta over the largest disc considered, r = (1 - |lambda|) / 2, bounds it over any
            // smaller one; the disc of radius r = 2 eta / (1 - |lambda|) maps into itself when
            // eta < (1 - |lambda|)^2 / 4 (r (1 - |lambda| - r) > eta), and needs the entry to
            // hold only out to |v*| + r.
            let vStar = lambda / 2
            let e = eta(vStar + (1 - lambda) / 2)
            guard e < (1 - lambda) * (1 - lambda) / 4 else { return false }
            return vStar + 2 * e / (1 - lambda) < reach
        }
        // The period-2 bulb: the 2-cycle v1, v2 = (-1 -+ sqrt(-3 - 4 c')) / 2, multiplier
        // mu = 4 (c' + 1). G(G(v1 + h)) - v1 = mu h + (2 v2 + 4 v1^2) h^2 + 4 v1 h^3 + h^4 for the
        // model; the truncation of the two applications adds e1 (2 s + e1) + e2, s bounding
        // |g| on the first image.
        let mu = 4 * Self.magnitude(cr + 1, ci)
        guard mu < 1 else { return Self.provesCycle(cr, ci, reach: reach, eta: eta) }
        let (qr, qi) = Self.squareRoot(-3 - 4 * cr, -4 * ci)
        let v1 = Self.magnitude(-1 - qr, -qi) / 2, v2 = Self.magnitude(-1 + qr, qi) / 2
        let near = Swift.min(v1, v2), far = Swift.max(v1, v2)
        // Around whichever point is nearer 0 (the other is its image): bounds with far for both.
        let q2 = 2 * far + 4 * far * far, q3 = 4 * far
        func excess(_ r: Double) -> Double {
            let e1 = eta(near + r)
            let s = far + 2 * near * r + r * r
            return q2 * r * r + q3 * r * r * r + r * r * r * r + e1 * (2 * s + e1) + eta(s + e1)
        }
        let wide = (1 - mu) / 2
        let e = excess(wide) - (q2 * wide * wide + q3 * wide * wide * wide + wide * wide * wide * wide)
        let r = 2 * e / (1 - mu)
        guard r < wide, mu * r + excess(r) < r else { return false }
        // Both discs (around v1 and its image around v2) inside the entry's validity.
        return far + 2 * far * r + r * r + eta(far + r) < reach
    }

    /// The longest cycle of the model map g(v) = v^2 + c' that `provesCycle` looks for.
    @usableFromInline static var longestCycle: Int { 16 }

    /// Periods 3 to `longestCycle` of the minibrot's bulbs: the attracting cycle of the model
    /// map g(v) = v^2 + c' (c' = cr + i ci), found from its critical orbit and settled by
    /// Newton's method on g^k(v) = v, then a disc around the cycle's point nearest 0 carried
    /// through k applications of G in ball arithmetic: the image of B(c, r) lies in
    /// B(c^2 + c', 2 |c| r + r^2 + eta(|c| + r) + rounding), every ball inside the entry's
    /// validity (|v| < `reach`). When the k-th ball lies strictly inside the first, G^k maps
    /// that disc into itself: an attracting fixed point of the true return map's k-th iterate
    /// there (Schwarz-Pick), so c is interior as for the cardioid. Radii 2^-4, 2^-6, ... are
    /// tried in turn. Nothing here rests on the cycle being found exactly: the balls do.
    @usableFromInline
    static func provesCycle(_ cr: Double, _ ci: Double, reach: Double, eta: (Double) -> Double) -> Bool {
        // The critical orbit of g: an escaping one is no interior point's.
        var x = 0.0, y = 0.0
        for _ in 0..<1000 {
            (x, y) = model(x, y, cr, ci)
            if x * x + y * y > 4 { return false }
        }
        // Candidate periods: where the orbit comes back closest to where it is now.
        let start = (x, y)
        var distances: [(Double, Int)] = []
        for k in 1...longestCycle {
            (x, y) = model(x, y, cr, ci)
            distances.append((magnitude(x - start.0, y - start.1), k))
        }
        for (_, k) in distances.sorted(by: { $0 < $1 }).prefix(3) where k >= 3 {
            guard let (px, py) = cyclePoint(period: k, from: start, cr, ci) else { continue }
            var radius = 0x1p-4
            while radius > 0x1p-40 {
                if ballReturns(period: k, from: (px, py), radius: radius, cr, ci, reach: reach, eta: eta) {
                    return true
                }
                radius *= 0x1p-2
            }
        }
        return false
    }

    /// A point of g's attracting k-cycle near `start`, by Newton's method on g^k(v) - v (the
    /// point of the cycle nearest 0), or nil when it does not settle or the cycle repels.
    @usableFromInline
    static func cyclePoint(period k: Int, from start: (Double, Double), _ cr: Double, _ ci: Double) -> (
        Double, Double
    )? {
        var (vx, vy) = start
        for _ in 0..<12 {
            // g^k(v) and its derivative (g^k)'(v) = prod 2 v_j.
            var x = vx, y = vy, dx = 1.0, dy = 0.0
            for _ in 0..<k {
                (dx, dy) = (2 * (x * dx - y * dy), 2 * (x * dy + y * dx))
                (x, y) = model(x, y, cr, ci)
            }
            // v <- v - (g^k(v) - v) / ((g^k)'(v) - 1).
            let fx = x - vx, fy = y - vy, gx = dx - 1, gy = dy
            let g2 = gx * gx + gy * gy
            guard g2 > 0 else { return nil }
            let sx = (fx * gx + fy * gy) / g2, sy = (fy * gx - fx * gy) / g2
            vx -= sx
            vy -= sy
            if sx * sx + sy * sy < 0x1p-90 * (1 + vx * vx + vy * vy) {
                guard dx * dx + dy * dy < 1 else { return nil }
                // The cycle's point nearest 0.
                var best = (vx, vy), x = vx, y = vy
                for _ in 1..<k {
                    (x, y) = model(x, y, cr, ci)
                    if x * x + y * y < best.0 * best.0 + best.1 * best.1 { best = (x, y) }
                }
                return best
            }
        }
        return nil
    }

    /// Whether B(`from`, `radius`) comes back strictly inside itself after k applications of G
    /// in ball arithmetic (the truncation eta at each ball's reach, and 2^-48 of the terms for
    /// the rounding of the centers), every ball inside the entry's validity.
    @usableFromInline
    static func ballReturns(
        period k: Int, from start: (Double, Double), radius: Double, _ cr: Double, _ ci: Double, reach: Double,
        eta: (Double) -> Double
    ) -> Bool {
        var (x, y) = start
        var r = radius
        let c = magnitude(cr, ci)
        for _ in 0..<k {
            let m = magnitude(x, y)
            guard m + r < reach else { return false }
            r = 2 * m * r + r * r + eta(m + r) + 0x1p-48 * (m * m + c + 1)
            (x, y) = model(x, y, cr, ci)
            guard r < 1 else { return false }
        }
        return magnitude(x - start.0, y - start.1) + r < radius
    }

    /// g(v) = v^2 + c' in Double, v = x + i y.
    @inlinable @inline(__always)
    static func model(_ x: Double, _ y: Double, _ cr: Double, _ ci: Double) -> (Double, Double) {
        (x * x - y * y + cr, 2 * x * y + ci)
    }

    /// The principal square root of x + i y.
    @inlinable
    static func squareRoot(_ x: Double, _ y: Double) -> (Double, Double) {
        let m = (x * x + y * y).squareRoot()
        let re = ((m + x) / 2).squareRoot()
        let im = ((m - x) / 2).squareRoot()
        return (re.isNaN ? 0 : re, y < 0 ? -im : im)
    }

    @inlinable
    static func magnitude(_ x: Double, _ y: Double) -> Double { (x * x + y * y).squareRoot() }
}
