import FractalNumerics

// The direct Double kernel for z^2 + c (Mandelbrot and Julia), vectorised across pixels.
//
// Each SIMD lane holds one pixel. Lanes iterate in blocks of up to `blockLength` steps with no
// per-step test; after each block one vector compare asks whether any lane has |z|^2 > 4 (or
// NaN, from overflow). Such a lane is replayed from the block's start, one scalar step at a
// time with the same arithmetic, so n2, nBig and z(nBig) are exact; its lane then takes the
// next pixel of the tile.
// Why a test per block is enough: for |c| <= 2 and |z| > 2, |z^2 + c| >= |z|^2 - 2 > |z|, so
// once |z| exceeds 2 it grows for good: a block that ends with |z| <= 2 never crossed 2.
// Pixels with |c| > 2 (and Julia parameters with |c| > 2) take the scalar path instead.
// Names: z = (zr, zi) the lanes' z(n), c = (cr, ci) their constants; `clock` counts the
// batch's steps and a lane's n is clock - start[lane].

/// The lane batch for one tile: pixels `range` of a row-major grid, given by `source`.
@usableFromInline
struct QuadraticLanes<V: SIMD> where V.Scalar == Double {
    /// Steps between tests: longer blocks test less often, shorter ones replay less.
    @usableFromInline static var blockLength: Int { 32 }

    /// Runs every pixel of `range`; `source(i)` gives pixel i's (z0, c) in Double.
    @inlinable
    static func run(
        range: Range<Int>, maxIterations: Int, writer: FieldWriter,
        source: (Int) -> (z0: Complex<Double>, c: Complex<Double>)
    ) {
        let lanes = V.scalarCount
        var zr = V(), zi = V(), cr = V(), ci = V()
        var start = [Int](repeating: 0, count: lanes)
        var pixel = [Int](repeating: -1, count: lanes)
        var clock = 0
        var active = 0
        var next = range.lowerBound
        let formula = QuadraticFormula()

        // Puts the next pixel that needs vector iteration into `lane`, or parks it (pixel -1,
        // z = c = 0, which never escapes).
        func refill(_ lane: Int) {
            while next < range.upperBound {
                let i = next
                next += 1
                let (z0, c) = source(i)
                if c.re * c.re + c.im * c.im > 4 {
                    writer.write(i, iterateEscape(formula, from: EscapeState(z: z0), c: c, maxIterations: maxIterations))
                    continue
                }
                if pixel[lane] < 0 { active += 1 }
                pixel[lane] = i
                start[lane] = clock
                zr[lane] = z0.re
                zi[lane] = z0.im
                cr[lane] = c.re
                ci[lane] = c.im
                return
            }
            if pixel[lane] >= 0 { active -= 1 }
            pixel[lane] = -1
            zr[lane] = 0
            zi[lane] = 0
            cr[lane] = 0
            ci[lane] = 0
        }

        // The clock value at which the oldest active lane reaches the limit.
        func deadline() -> Int {
            var d = Int.max
            for lane in 0..<lanes where pixel[lane] >= 0 { d = min(d, start[lane] + maxIterations) }
            return d
        }

        for lane in 0..<lanes { refill(lane) }
        var limit = deadline()
        while active > 0 {
            let steps = min(blockLength, limit - clock)
            let startR = zr, startI = zi
            for _ in 0..<steps {
                let x = zr, y = zi
                let xy = x * y
                zr = (x + y) * (x - y) + cr
                zi = (xy + xy) + ci
            }
            clock += steps
            let r2 = zr * zr + zi * zi
            var anyOutside = false
            for lane in 0..<lanes { anyOutside = anyOutside || !(r2[lane] <= Escape.radiusSquared2) }
            if !anyOutside && clock < limit { continue }
            for lane in 0..<lanes where pixel[lane] >= 0 {
                if !(r2[lane] <= Escape.radiusSquared2) {
                    // Crossed |z| = 2 in this block: replay it exactly.
                    let state = EscapeState(z: Complex(startR[lane], startI[lane]), n: clock - steps - start[lane])
                    let c = Complex(cr[lane], ci[lane])
                    writer.write(pixel[lane], iterateEscape(formula, from: state, c: c, maxIterations: maxIterations))
                    refill(lane)
                } else if clock - start[lane] == maxIterations {
                    writer.write(pixel[lane], .bounded)
                    refill(lane)
                }
            }
            limit = deadline()
        }
    }
}
