import FractalNumerics

// The vectorised kernel for z^2 + c (Mandelbrot and Julia), in Double or double-double lanes.
//
// Each SIMD lane holds one pixel. Lanes iterate in blocks of up to `blockLength` steps with no
// per-step test; after each block, lanes whose |z|^2 may exceed 4 (or is NaN, from overflow)
// are replayed from the block's start, one scalar step at a time with the same arithmetic
// (the scalar type and the lanes share their algorithms), so n2, nBig and z(nBig) are exact;
// the lane then takes the next pixel of the tile.
// Why a test per block is enough: for |c| <= 2 and |z| > 2, |z^2 + c| >= |z|^2 - 2 > |z|, so
// once |z| exceeds 2 it grows for good: a block that ends with |z| <= 2 never crossed 2.
// Pixels with |c| > 2 (and Julia parameters with |c| > 2) take the scalar path instead.
// Names: z = (zr, zi) the lanes' z(n), c = (cr, ci) their constants; `clock` counts the
// batch's steps and a lane's n is clock - start[lane].

/// A vector of z^2 + c states, one per lane, in some number type.
@usableFromInline
protocol QuadraticLaneVector {
    associatedtype Scalar: DirectScalar
    static var laneCount: Int { get }
    init()
    subscript(lane: Int) -> Scalar { get set }
    /// z <- z^2 + c in every lane, with z^2 = ((x + y)(x - y), 2xy), as `Complex.squared`.
    static func step(_ zr: inout Self, _ zi: inout Self, _ cr: Self, _ ci: Self)
    /// Whether lane's |z|^2 is certainly <= 4 (false for NaN and for close calls).
    static func surelyInside(_ zr: Self, _ zi: Self, lane: Int) -> Bool
}

/// Double lanes.
@usableFromInline
struct DoubleLanes<V: SIMD>: QuadraticLaneVector where V.Scalar == Double {
    @usableFromInline var v: V
    @inlinable init() { v = V() }
    @inlinable static var laneCount: Int { V.scalarCount }
    @inlinable subscript(lane: Int) -> Double {
        get { v[lane] }
        set { v[lane] = newValue }
    }

    @inlinable @inline(__always)
    static func step(_ zr: inout DoubleLanes, _ zi: inout DoubleLanes, _ cr: DoubleLanes, _ ci: DoubleLanes) {
        let x = zr.v, y = zi.v
        let xy = x * y
        zr.v = (x + y) * (x - y) + cr.v
        zi.v = (xy + xy) + ci.v
    }

    @inlinable @inline(__always)
    static func surelyInside(_ zr: DoubleLanes, _ zi: DoubleLanes, lane: Int) -> Bool {
        let x = zr.v[lane], y = zi.v[lane]
        return x * x + y * y <= Escape.radiusSquared2  // the scalar kernel's exact test
    }
}

/// Double-double lanes: (hi, lo) vectors, through the same `DoubleWord` algorithms as
/// `DoubleDouble`.
@usableFromInline
struct DoubleDoubleLanes<V: SIMD & DoubleWordComponent>: QuadraticLaneVector where V.Scalar == Double {
    @usableFromInline var hi: V
    @usableFromInline var lo: V
    @inlinable init() { hi = V(); lo = V() }
    @inlinable static var laneCount: Int { V.scalarCount }
    @inlinable subscript(lane: Int) -> DoubleDouble {
        get { DoubleDouble(hi: hi[lane], lo: lo[lane]) }
        set { hi[lane] = newValue.hi; lo[lane] = newValue.lo }
    }

    @inlinable @inline(__always)
    static func step(
        _ zr: inout DoubleDoubleLanes, _ zi: inout DoubleDoubleLanes, _ cr: DoubleDoubleLanes, _ ci: DoubleDoubleLanes
    ) {
        let zero = V()
        let (sh, sl) = DoubleWord.add(zr.hi, zr.lo, zi.hi, zi.lo)
        let (dh, dl) = DoubleWord.add(zr.hi, zr.lo, zero - zi.hi, zero - zi.lo)
        let (rh, rl) = DoubleWord.multiply(sh, sl, dh, dl)
        let (ph, pl) = DoubleWord.multiply(zr.hi, zr.lo, zi.hi, zi.lo)
        (zr.hi, zr.lo) = DoubleWord.add(rh, rl, cr.hi, cr.lo)
        (zi.hi, zi.lo) = DoubleWord.add(ph + ph, pl + pl, ci.hi, ci.lo)
    }

    @inlinable @inline(__always)
    static func surelyInside(_ zr: DoubleDoubleLanes, _ zi: DoubleDoubleLanes, lane: Int) -> Bool {
        let x = zr.hi[lane], y = zi.hi[lane]
        return x * x + y * y < Escape.inner2  // close calls go to the scalar kernel's exact test
    }
}

/// Bookkeeping that runs beside the lanes: none (`NoLaneCheck`), or the rounding error
/// estimate that tells which Double results may be off (`RoundingCheck`).
@usableFromInline
protocol LaneCheck {
    associatedtype Lanes: QuadraticLaneVector
    /// Before each step, from the lanes' z.
    mutating func track(_ zr: Lanes, _ zi: Lanes)
    /// After each block: keeps the state in range.
    mutating func renormalize()
    /// `lane` starts a new pixel, from z0 with constant c.
    mutating func reset(lane: Int, z0: Complex<Lanes.Scalar>, c: Complex<Lanes.Scalar>)
    /// Pixel `pixel` is finished: `result` after the lane's last block, replayed from z at
    /// n = `blockStart`, where this check's state was `before` (a pixel that stayed bounded
    /// is judged by the current state).
    func finish(
        pixel: Int, result: PixelResult, lane: Int, before: Self, z: Complex<Lanes.Scalar>, c: Complex<Lanes.Scalar>,
        blockStart: Int, maxIterations: Int)
}

/// No bookkeeping (double-double lanes, unchecked Double lanes).
@usableFromInline
struct NoLaneCheck<L: QuadraticLaneVector>: LaneCheck {
    @inlinable init() {}
    @inlinable @inline(__always) func track(_ zr: L, _ zi: L) {}
    @inlinable @inline(__always) func renormalize() {}
    @inlinable @inline(__always) func reset(lane: Int, z0: Complex<L.Scalar>, c: Complex<L.Scalar>) {}
    @inlinable @inline(__always)
    func finish(
        pixel: Int, result: PixelResult, lane: Int, before: NoLaneCheck, z: Complex<L.Scalar>, c: Complex<L.Scalar>,
        blockStart: Int, maxIterations: Int
    ) {}
}

/// The rounding check of Double lanes: each lane tracks the variance of its accumulated
/// rounding error in units of u^2 = 2^-106, e2 <- 4 |z|^2 e2 + (|z|^2 + |c|)^2 (step k
/// rounds by at most about u (|z(k)|^2 + |c|), and the map stretches earlier errors by
/// |2 z|), scaled by 2^exponent, from |z0|^2 (the pixel's own rounding). A pixel whose
/// smooth value may move by more than 1e-7 (`PrecisionEstimate`, with u sqrt(e2) as the
/// error of z), or that stays bounded with that error large at |z| = 2, is marked in
/// `atRisk`, for double-double.
@usableFromInline
struct RoundingCheck<V: SIMD>: LaneCheck where V.Scalar == Double {
    @usableFromInline var e2 = V()
    /// 2^-exponent per lane: the unit of the terms added.
    @usableFromInline var unit = V()
    /// Per lane, the scale of e2 (exact integers).
    @usableFromInline var exponent = V()
    /// Per lane, |c|.
    @usableFromInline var cAbs = V()
    @usableFromInline let atRisk: UnsafeMutablePointer<UInt8>

    @inlinable init(atRisk: UnsafeMutablePointer<UInt8>) {
        self.atRisk = atRisk
    }

    @inlinable @inline(__always)
    mutating func track(_ zr: DoubleLanes<V>, _ zi: DoubleLanes<V>) {
        let x = zr.v, y = zi.v
        let r2 = x * x + y * y
        let added = r2 + cAbs
        e2 = e2 * (4 * r2) + added * added * unit
    }

    @inlinable @inline(__always)
    mutating func renormalize() {
        for lane in 0..<V.scalarCount where e2[lane] > 0x1p400 {
            e2[lane] *= 0x1p-400
            unit[lane] *= 0x1p-400
            exponent[lane] += 400
        }
    }

    @inlinable @inline(__always)
    mutating func reset(lane: Int, z0: Complex<Double>, c: Complex<Double>) {
        e2[lane] = z0.lengthSquared
        unit[lane] = 1
        exponent[lane] = 0
        cAbs[lane] = c.lengthSquared.squareRoot()
    }

    @inlinable
    func finish(
        pixel: Int, result: PixelResult, lane: Int, before: RoundingCheck, z start: Complex<Double>, c: Complex<Double>,
        blockStart: Int, maxIterations: Int
    ) {
        var e = before.e2[lane], unit = before.unit[lane], exponent = Int(before.exponent[lane])
        var z = start
        let cAbs = before.cAbs[lane]
        if result.nBig > 0 {
            // Replay the block's steps up to the escape with the same arithmetic.
            for _ in blockStart..<Int(result.nBig) {
                let r2 = z.lengthSquared
                e = e * (4 * r2) + (r2 + cAbs) * (r2 + cAbs) * unit
                z = z.squared + c
                if e > 0x1p400 { e *= 0x1p-400; unit *= 0x1p-400; exponent += 400 }
            }
        } else {
            e = e2[lane]
            exponent = Int(self.exponent[lane])
        }
        let r2 = result.nBig > 0 ? z.lengthSquared : Escape.radiusSquared2
        atRisk[pixel] = PrecisionEstimate.roundingCheckHolds(lengthSquared: r2, e2: e, exponent: exponent) ? 0 : 1
    }
}

/// The lane batch for one tile: pixels `range` of a row-major grid, given by `source`.
@usableFromInline
enum QuadraticLanes<L: QuadraticLaneVector> {
    /// Steps between tests: longer blocks test less often, shorter ones replay less
    /// (Documentation/Benchmarks.md).
    @inlinable static var blockLength: Int { 32 }

    /// Runs every pixel of `range`; `source(i)` gives pixel i's (z0, c).
    /// `skipKnownInterior`: Mandelbrot pixels inside the main cardioid or the period-2 disc
    /// (`KnownInterior`) are bounded without iterating.
    @inlinable
    static func run(
        range: Range<Int>, maxIterations: Int, writer: FieldWriter, skipKnownInterior: Bool = false,
        source: (Int) -> (z0: Complex<L.Scalar>, c: Complex<L.Scalar>)
    ) {
        var none = NoLaneCheck<L>()
        run(
            range: range, maxIterations: maxIterations, writer: writer, skipKnownInterior: skipKnownInterior,
            check: &none, pixelIndex: { $0 }, source: source)
    }

    /// As above, with `check` beside the lanes; item j of `range` is pixel `pixelIndex(j)`,
    /// and `source` is called with the pixel index.
    @inlinable
    static func run<C: LaneCheck>(
        range: Range<Int>, maxIterations: Int, writer: FieldWriter, skipKnownInterior: Bool = false,
        check: inout C, pixelIndex: (Int) -> Int,
        source: (Int) -> (z0: Complex<L.Scalar>, c: Complex<L.Scalar>)
    ) where C.Lanes == L {
        let lanes = L.laneCount
        var zr = L(), zi = L(), cr = L(), ci = L()
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
                let i = pixelIndex(next)
                next += 1
                let (z0, c) = source(i)
                let cre = c.re.leadingDouble, cim = c.im.leadingDouble
                if !(cre * cre + cim * cim <= 4) {
                    let result = iterateEscape(formula, from: EscapeState(z: z0), c: c, maxIterations: maxIterations)
                    writer.write(i, result)
                    // The check from a fresh state in lane 0, replayed over the whole orbit.
                    var fresh = check
                    fresh.reset(lane: 0, z0: z0, c: c)
                    fresh.finish(
                        pixel: i, result: result, lane: 0, before: fresh, z: z0, c: c, blockStart: 0,
                        maxIterations: maxIterations)
                    continue
                }
                if skipKnownInterior && KnownInterior.contains(cre, cim) {
                    writer.write(i, .bounded)
                    continue
                }
                if pixel[lane] < 0 { active += 1 }
                pixel[lane] = i
                start[lane] = clock
                zr[lane] = z0.re
                zi[lane] = z0.im
                cr[lane] = c.re
                ci[lane] = c.im
                check.reset(lane: lane, z0: z0, c: c)
                return
            }
            if pixel[lane] >= 0 { active -= 1 }
            pixel[lane] = -1
            zr[lane] = .zero
            zi[lane] = .zero
            cr[lane] = .zero
            ci[lane] = .zero
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
            let startR = zr, startI = zi, startCheck = check
            for _ in 0..<steps {
                check.track(zr, zi)
                L.step(&zr, &zi, cr, ci)
            }
            clock += steps
            check.renormalize()
            // Scalar lane tests: a horizontal SIMDMask reduction measured slower here.
            var allInside = true
            for lane in 0..<lanes { allInside = allInside && L.surelyInside(zr, zi, lane: lane) }
            if allInside && clock < limit { continue }
            for lane in 0..<lanes where pixel[lane] >= 0 {
                if !L.surelyInside(zr, zi, lane: lane) {
                    // May have crossed |z| = 2 in this block: replay it exactly.
                    let state = EscapeState(z: Complex(startR[lane], startI[lane]), n: clock - steps - start[lane])
                    let c = Complex(cr[lane], ci[lane])
                    let result = iterateEscape(formula, from: state, c: c, maxIterations: maxIterations)
                    writer.write(pixel[lane], result)
                    check.finish(
                        pixel: pixel[lane], result: result, lane: lane, before: startCheck, z: state.z, c: c,
                        blockStart: state.n, maxIterations: maxIterations)
                    refill(lane)
                } else if clock - start[lane] == maxIterations {
                    writer.write(pixel[lane], .bounded)
                    check.finish(
                        pixel: pixel[lane], result: .bounded, lane: lane, before: startCheck, z: .zero, c: .zero,
                        blockStart: maxIterations, maxIterations: maxIterations)
                    refill(lane)
                }
            }
            limit = deadline()
        }
    }
}

/// The two largest components of the Mandelbrot set's interior, where z^2 + c never escapes:
/// the main cardioid (an attracting fixed point) and the disc of period 2 (an attracting
/// 2-cycle). The tests keep a margin of 1e-12 from the boundary, far above their rounding
/// (about 1e-16 here), so a point they accept is inside exactly; points nearer the boundary
/// are iterated as usual.
@usableFromInline package enum KnownInterior {
    /// Whether (`x`, `y`) lies inside the main cardioid or the period-2 disc by more than the
    /// margin.
    ///
    /// True means the point is in the set; false means only that this test cannot tell.
    @inlinable @inline(__always)
    package static func contains(_ x: Double, _ y: Double) -> Bool {
        let u = x - 0.25
        let q = u * u + y * y
        if q * (q + u) < 0.25 * y * y - 1e-12 { return true }
        let v = x + 1
        return v * v + y * y < 0.0625 - 1e-12
    }
}
