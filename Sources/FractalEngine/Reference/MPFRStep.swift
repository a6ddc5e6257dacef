import ArbitraryPrecision
internal import CMPFR

/// z <- z^p + c in place in an `MPFRWorkspace`, with the oracle's arithmetic:
/// z^2 = ((x + y)(x - y), 2xy), then p - 2 schoolbook products with z, then + c, every
/// operation correctly rounded at the registers' precision.
///
/// Register layout: 0 x, 1 y (z); 2 cx, 3 cy (c); 4, 5, 6 scratch; 7, 8 a copy of z (for
/// p > 2). Registers from `MPFRStep.firstFree` on are the caller's.
enum MPFRStep {
    static let firstFree = 9

    /// A workspace with z and c in their registers and the scratch after them.
    static func workspace(z: BigComplex, c: BigComplex, precision: Precision) -> MPFRWorkspace {
        let ws = MPFRWorkspace(count: firstFree, precision: precision)
        ws.set(0, z.re)
        ws.set(1, z.im)
        ws.set(2, c.re)
        ws.set(3, c.im)
        return ws
    }

    @inline(__always)
    static func zPowerPlusC(_ ws: MPFRWorkspace, power: Int) {
        let x = ws[0], y = ws[1], cx = ws[2], cy = ws[3], t1 = ws[4], t2 = ws[5], t3 = ws[6], bx = ws[7], by = ws[8]
        if power > 2 {
            mpfr_set(bx, x, MPFR_RNDN)
            mpfr_set(by, y, MPFR_RNDN)
        }
        mpfr_add(t1, x, y, MPFR_RNDN)
        mpfr_sub(t2, x, y, MPFR_RNDN)
        mpfr_mul(t3, x, y, MPFR_RNDN)
        mpfr_mul(x, t1, t2, MPFR_RNDN)
        mpfr_mul_2ui(y, t3, 1, MPFR_RNDN)
        var k = 2
        while k < power {
            // (x + iy)(bx + i by) = (x bx - y by) + i(x by + y bx)
            mpfr_mul(t1, x, bx, MPFR_RNDN)
            mpfr_mul(t2, y, by, MPFR_RNDN)
            mpfr_mul(t3, x, by, MPFR_RNDN)
            mpfr_mul(y, y, bx, MPFR_RNDN)
            mpfr_add(y, t3, y, MPFR_RNDN)
            mpfr_sub(x, t1, t2, MPFR_RNDN)
            k += 1
        }
        mpfr_add(x, x, cx, MPFR_RNDN)
        mpfr_add(y, y, cy, MPFR_RNDN)
    }
}
