import ArbitraryPrecision
internal import CMPFR
import FractalNumerics

/// The reference orbit's exact escape test near |Z| = 2, decided from Z's leading bits where
/// they settle it, so that an orbit sitting at |Z| = 2 does not pay two full-precision squares
/// a step (e52465's orbit is within 2^-40 of |Z| = 2 at 99% of its steps).
///
/// The exact test is MPFR's at the orbit's precision p: r2 = x^2 + y^2 (each square and the
/// sum rounded to nearest), escaped when r2 > 4, else the gap 4 - r2 (exact: Sterbenz) kept as
/// `mpfr_get_d_2exp` rounds it. This computes G = 4 - (xq^2 + yq^2) from x and y rounded to q
/// bits (the squares exact, the sum to 2q + 8 bits), with |G - (4 - r2)| below E = 2^(4 - q):
///
/// - |x^2 - xq^2| = |x - xq| |x + xq| <= 2^-q |x| (2 |x| (1 + 2^-q)), the same for y: with
///   x^2 + y^2 < 4.01 (the test runs only within 2^-40 of 4), together under 2^(1 - q) 4.02.
/// - The sum's rounding to 2q + 8 bits, under 2^(-2q - 8) 4.02; MPFR's three roundings to p
///   bits (p >= 4q here), under 2^-p (x^2 + y^2 + t1 + t2) < 2^(4 - p).
///
/// Where G - E and G + E are both above 0 and round to the same Double, every value between
/// them (so MPFR's 4 - r2) rounds to it (rounding is monotone): that is the gap. Where both are
/// below 0, r2 > 4: escaped. Otherwise (a gap under about 2^(57 - q), or one at a rounding
/// boundary) q grows fourfold, and past p / 4 the caller runs the exact test. The answer is
/// the exact test's, bit for bit (Ziv's strategy: J.-M. Muller et al., Handbook of
/// Floating-Point Arithmetic, 2nd ed., 10.5).
///
/// q starts from the last step's gap: an orbit leaving |Z| = 2 doubles its distance a step,
/// so a gap of 2^-g needs about g + 60 bits, then two fewer each step.
final class NearEscapeTest {
    /// The exact test's answer, in the form a device's step gives it.
    typealias Answer = DeviceOrbitStep.EscapeTest

    /// The least short precision.
    static let leastBits = 192
    /// From this orbit precision the short test runs first (below it the exact one is cheap).
    static let fromBits = 4 * leastBits

    private let maxBits: Int
    private let xq, yq, xx, yy, sum, lower, upper, bound: UnsafeMutablePointer<__mpfr_struct>
    private let registers: MPFRWorkspace
    /// The exponent of the last gap this test gave, and its step.
    private var last: (step: Int, exponent: Int)?

    /// For an orbit at `precision` (at least `fromBits`).
    init(precision: Precision) {
        maxBits = precision.bits / 4
        registers = MPFRWorkspace(count: 8, precision: Precision(bits: 2 * maxBits + 8))
        (xq, yq, xx, yy) = (registers[0], registers[1], registers[2], registers[3])
        (sum, lower, upper, bound) = (registers[4], registers[5], registers[6], registers[7])
    }

    /// The exact test's answer for step m's z = (x, y), or nil where the leading bits do not
    /// settle it.
    func answer(step m: Int, _ x: UnsafePointer<__mpfr_struct>, _ y: UnsafePointer<__mpfr_struct>) -> Answer? {
        var q = NearEscapeTest.leastBits
        if let last, last.step == m - 1 { q = Swift.max(q, (-last.exponent + 96 + 63) & ~63) }
        while q <= maxBits {
            if let answer = answer(bits: q, x, y) {
                if case .gap(let g) = answer { last = (m, g.exponent) }
                return answer
            }
            q *= 4
        }
        return nil
    }

    private func answer(bits q: Int, _ x: UnsafePointer<__mpfr_struct>, _ y: UnsafePointer<__mpfr_struct>) -> Answer? {
        // Registers allocated at 2 maxBits + 8 bits, set to fewer (mpfr_set_prec_raw).
        mpfr_set_prec_raw(xq, mpfr_prec_t(q))
        mpfr_set_prec_raw(yq, mpfr_prec_t(q))
        mpfr_set_prec_raw(xx, mpfr_prec_t(2 * q))
        mpfr_set_prec_raw(yy, mpfr_prec_t(2 * q))
        mpfr_set_prec_raw(sum, mpfr_prec_t(2 * q + 8))
        mpfr_set_prec_raw(lower, mpfr_prec_t(2 * q + 8))
        mpfr_set_prec_raw(upper, mpfr_prec_t(2 * q + 8))
        mpfr_set(xq, x, MPFR_RNDN)
        mpfr_set(yq, y, MPFR_RNDN)
        mpfr_sqr(xx, xq, MPFR_RNDN)  // exact: 2q bits hold a q-bit square
        mpfr_sqr(yy, yq, MPFR_RNDN)
        mpfr_add(sum, xx, yy, MPFR_RNDN)
        mpfr_d_sub(sum, 4, sum, MPFR_RNDN)  // G, exact: the sum lies within a factor 2 of 4
        mpfr_set_ui_2exp(bound, 1, 4 - q, MPFR_RNDN)  // E = 2^(4 - q), exact
        mpfr_sub(lower, sum, bound, MPFR_RNDD)
        mpfr_add(upper, sum, bound, MPFR_RNDU)
        if fathom_mpfr_sgn(upper) < 0 { return .escaped }
        guard fathom_mpfr_sgn(lower) > 0 else { return nil }
        var el = 0, eu = 0
        let gl = mpfr_get_d_2exp(&el, lower, MPFR_RNDN), gu = mpfr_get_d_2exp(&eu, upper, MPFR_RNDN)
        guard gl == gu && el == eu else { return nil }
        return .gap(FloatExp(normalizing: gl, el))
    }
}
