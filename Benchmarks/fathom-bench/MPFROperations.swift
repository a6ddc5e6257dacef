import CMPFR
import Fathom
import Foundation

/// The MPFR operations of a Mandelbrot reference orbit and nothing else (no conversions, no
/// stores, no escape test), to measure the orbit code's overhead against.
enum MPFROperations {
    /// Microseconds per step of z <- z^2 + c with the orbit's operation sequence.
    static func mandelbrotSteps(c: BigComplex, steps: Int, precision: Precision) -> Double {
        let ws = MPFRWorkspace(count: 7, precision: precision)
        let x = ws[0], y = ws[1], cx = ws[2], cy = ws[3], t1 = ws[4], t2 = ws[5], t3 = ws[6]
        ws.set(2, c.re)
        ws.set(3, c.im)
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<steps {
            mpfr_add(t1, x, y, MPFR_RNDN)
            mpfr_sub(t2, x, y, MPFR_RNDN)
            mpfr_mul(t3, x, y, MPFR_RNDN)
            mpfr_mul(x, t1, t2, MPFR_RNDN)
            mpfr_mul_2ui(y, t3, 1, MPFR_RNDN)
            mpfr_add(x, x, cx, MPFR_RNDN)
            mpfr_add(y, y, cy, MPFR_RNDN)
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(steps) / 1e3
    }
}
