import CMPFR
import Fathom
import Foundation

/// The one-thread MPFR baseline of a reference orbit's steps.
enum MPFROperations {
    /// Microseconds per step of ../shared/tools/mpfr-step.c's sequence (x^2, y^2, 2xy and the
    /// adds, with its Double escape test): the one-thread MPFR baseline a reference orbit is
    /// measured against.
    static func mpfrStepSteps(c: BigComplex, steps: Int, precision: Precision) -> Double {
        let ws = MPFRWorkspace(count: 7, precision: precision)
        let x = ws[0], y = ws[1], cx = ws[2], cy = ws[3], x2 = ws[4], y2 = ws[5], t = ws[6]
        ws.set(2, c.re)
        ws.set(3, c.im)
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<steps {
            mpfr_sqr(x2, x, MPFR_RNDN)
            mpfr_sqr(y2, y, MPFR_RNDN)
            mpfr_mul(t, x, y, MPFR_RNDN)
            mpfr_mul_2ui(t, t, 1, MPFR_RNDN)
            mpfr_sub(x, x2, y2, MPFR_RNDN)
            mpfr_add(x, x, cx, MPFR_RNDN)
            mpfr_add(y, t, cy, MPFR_RNDN)
            let nx = mpfr_get_d(x, MPFR_RNDN), ny = mpfr_get_d(y, MPFR_RNDN)
            if nx * nx + ny * ny > 4 { break }
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(max(steps, 1)) / 1e3
    }
}
