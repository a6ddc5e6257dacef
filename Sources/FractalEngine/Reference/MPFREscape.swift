import ArbitraryPrecision
internal import CMPFR
import FractalNumerics

/// Direct escape-time iteration of one point in MPFR, in place (no allocation per step):
/// the exact reference that tests (and, later, reference orbits) build on. Follows the
/// oracle's arithmetic: z^2 = ((x + y)(x - y), 2xy), z^p = z^2 z ... z, each operation
/// correctly rounded at the workspace precision.
package final class MPFREscape {
    private let ws: MPFRWorkspace
    // Registers: MPFRStep's layout, then |z|^2.
    package let precision: Precision

    package init(precision: Precision) {
        self.precision = precision
        ws = MPFRWorkspace(count: MPFRStep.firstFree + 1, precision: precision)
    }

    // `mpfr_log` fills MPFR's cache of log 2 at the working precision, one per thread (this
    // MPFR keeps its caches in thread-local storage), freed only by that thread: a worker
    // thread that ends leaks it (LeakSanitizer found 29 of them after the suite's renders with
    // pixels settled in MPFR). An escape iterator is made and dropped on the thread that uses
    // it (a tile's run), so it frees its thread's caches as it goes.
    deinit { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE) }

    /// Iterates z0 -> z^p + c up to `maxIterations`; returns n2, nBig and smooth (smooth from
    /// ln|z(nBig)| computed in MPFR).
    package func iterate(z0: BigComplex, c: BigComplex, power: Int, maxIterations: Int) -> PixelResult {
        let x = ws[0], y = ws[1], t1 = ws[4], t2 = ws[5], r2 = ws[MPFRStep.firstFree]
        ws.set(0, z0.re)
        ws.set(1, z0.im)
        ws.set(2, c.re)
        ws.set(3, c.im)
        var n2 = 0
        for n in 1...maxIterations {
            MPFRStep.zPowerPlusC(ws, power: power)
            mpfr_sqr(t1, x, MPFR_RNDN)
            mpfr_sqr(t2, y, MPFR_RNDN)
            mpfr_add(r2, t1, t2, MPFR_RNDN)
            if n2 == 0 && mpfr_cmp_d(r2, 4) > 0 { n2 = n }
            if mpfr_cmp_d(r2, Escape.radiusSquaredBig) > 0 {
                mpfr_log(t1, r2, MPFR_RNDN)
                let lnAbsZ = mpfr_get_d(t1, MPFR_RNDN) / 2
                let smooth = Double(n) + 1 - Math.log(lnAbsZ / Escape.logBig) / Math.log(Double(power))
                return PixelResult(n2: UInt32(n2), nBig: UInt32(n), smooth: smooth)
            }
        }
        return PixelResult(n2: UInt32(n2), nBig: 0, smooth: .nan)
    }

    /// The pixel (x, y) of `viewport` for `family` (Mandelbrot, Multibrot or Julia).
    package func iterate(
        pixelX: Int, pixelY: Int, viewport: Viewport, family: Family, maxIterations: Int
    ) -> PixelResult {
        let p = viewport.exactPoint(x: pixelX, y: pixelY)
        let zero = BigComplex(precision: precision)
        switch family {
        case .mandelbrot: return iterate(z0: zero, c: p, power: 2, maxIterations: maxIterations)
        case .multibrot(let power): return iterate(z0: zero, c: p, power: power, maxIterations: maxIterations)
        case .julia:
            // A validated location's parameter parses (Location.validate); no silent zero.
            guard let c = try? family.juliaParameter(precision: precision) else {
                preconditionFailure("MPFREscape takes validated locations: the Julia parameter does not parse")
            }
            return iterate(z0: p, c: c, power: 2, maxIterations: maxIterations)
        case .newton:
            preconditionFailure("MPFREscape iterates escape-time families only")
        }
    }
}
