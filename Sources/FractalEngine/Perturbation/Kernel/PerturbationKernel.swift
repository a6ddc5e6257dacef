import ArbitraryPrecision
import FractalNumerics

/// A perturbation pass in the form the CPU's tiles run: one pixel at a time, generic over
/// formula, delta type, what it tracks besides z (`NoTracking`, or the derivative and trap of
/// `ExtrasTracking`), the precision estimate and how it reads the orbit, taking the longest
/// valid approximation step where a table is given. Built from the pass's configuration
/// (`PerturbationPass`), whose `finish` writes each pixel.
@usableFromInline
struct PerturbationKernel<
    F: PerturbationFormula, D: PerturbationDelta, T: PixelTracker, B: StretchBound, O: KernelOrbit<D>
>: TileKernel {
    @usableFromInline let pass: PerturbationPass<F, D, T, B, O>

    init(_ pass: PerturbationPass<F, D, T, B, O>) { self.pass = pass }

    @inlinable
    func run(_ range: Range<Int>, _ writer: FieldWriter) {
        // Every buffer is taken once per tile.
        let none: [Int] = [0]
        pass.orbit.withCursor { orbit in
            pass.rebaseOrbit.withCursor { rebaseOrbit in
                none.withUnsafeBufferPointer { none in
                    let empty = BLAView<D>.none(none.baseAddress!)
                    withTables(empty) { blaView, rebaseView in
                        for j in range {
                            let i = pass.pixel(j)
                            if provenInterior(i) {
                                pass.finishInterior(i, writer: writer)
                                continue
                            }
                            var run = start(i, orbit: orbit, table: blaView)
                            while !step(&run, rebaseOrbit: rebaseOrbit, rebaseBLA: rebaseView) {}
                            if T.isActive {
                                pass.flags.extras?.write(
                                    i, run.tracker.finish(escaped: run.end == .escaped, log2Spacing: pass.log2Spacing))
                            }
                            pass.finish(i, run.outcome, dc: run.dc, writer: writer)
                        }
                    }
                }
            }
        }
    }

    /// Views of both tables (or `empty`).
    @inlinable
    func withTables<R>(_ empty: BLAView<D>, _ body: (BLAView<D>, BLAView<D>) -> R) -> R {
        func withOne(_ table: ApproximationTable<D>?, _ inner: (BLAView<D>) -> R) -> R {
            if let table { return table.withView(inner) }
            return inner(empty)
        }
        return withOne(pass.bla) { a in withOne(pass.rebaseBLA) { b in body(a, b) } }
    }

    /// Out of line, and in the tile loop rather than in the step loop: inlined there, the
    /// check made the step loop of flake 1.7e-157 1.7 times slower (Documentation/Benchmarks.md).
    @usableFromInline @inline(never)
    func provenInterior(_ i: Int) -> Bool {
        guard !T.isActive, let interior = pass.interior else { return false }
        return interior.proves(dc: pass.grid.delta(i))
    }

    /// Pixel i before its first step.
    @inlinable @inline(__always)
    func start(_ i: Int, orbit: O.Cursor, table: BLAView<D>) -> PixelRun<D, T, B, O.Cursor> {
        let dc = pass.grid.delta(i)
        let dz = pass.formula.addsDC ? Complex<D>.zero : dc
        var cursor = orbit
        let z0 = cursor.z(0) + dz
        let x = z0.re.leadingDouble, y = z0.im.leadingDouble
        var r = PixelRun<D, T, B, O.Cursor>(
            pixel: i, dc: dc, dcStep: pass.formula.addsDC ? dc : .zero, orbit: cursor, table: table,
            dz: dz, tracker: T(julia: !pass.formula.addsDC, trap: pass.trap, x: x, y: y))
        if !pass.formula.addsDC { r.nextStretch = pass.formula.stretchSquared(x * x + y * y) }
        // The error variance starts at 0 (the product from the first step's 1). Set here, not
        // in PixelRun's init: an errorScale set there by a condition made every kernel 1.7 times
        // slower (flake 1.7e-157; Documentation/Benchmarks.md).
        if B.variance { r.errorScale = 0 }
        return r
    }

    /// One step of `r`: the longest valid BLA step, else one perturbation step, then the
    /// escape, rebasing and glitch tests. True when the pixel is finished (`PixelRun.end` set).
    @inlinable @inline(__always)
    func step(_ r: inout PixelRun<D, T, B, O.Cursor>, rebaseOrbit: O.Cursor, rebaseBLA: BLAView<D>) -> Bool {
        guard r.n < pass.maxIterations else {
            r.end = .limit
            return true
        }
        let blaAllowed = !T.isActive || T.tracksBLA
        // LA (`LATable`): at an entry's start the pixel takes the exact step there and then
        // the longest entry that holds; elsewhere BLA may take it at most to the next start.
        var reach = Int.max
        if blaAllowed && !r.table.la.isEmpty {
            let chain = r.table.la.chain(at: r.m)
            if chain >= 0 {
                linearStep(&r, chain: chain)
                return finishStep(&r, rebaseOrbit: rebaseOrbit, rebaseBLA: rebaseBLA)
            }
            reach = -chain
        }
        if blaAllowed, let (index, length) = r.table.longestStep(at: r.m, dz: r.dz, maxLength: reach),
            r.n + length <= pass.maxIterations
        {
            let step = r.table[index]
            if T.isActive {
                r.tracker.bla(
                    a: Complex(step.a.re.floatExpValue, step.a.im.floatExpValue),
                    b: Complex(step.b.re.floatExpValue, step.b.im.floatExpValue))
            }
            let load = (r.dz.lengthSquared * step.inverseRadiusSquared).leadingDouble
            if !B.variance { r.addLoad(load) }
            let before = r.dz
            r.dz = step.apply(r.dz, r.dcStep)
            r.m += length
            r.n += length
            r.work.approximationSteps += 1
            // dz/dc (and the error) is stretched by |A| over the step (within eps).
            r.errorScale *= step.stretchSignificand
            r.errorScaleExponent += step.stretchExponent
            if B.variance {
                (r.errorScale, r.errorScaleExponent) = PixelRun<D, T, B, O.Cursor>.blaError(
                    (r.errorScale, r.errorScaleExponent), step: step, length: length, before: before, load: load,
                    epsilon: pass.epsilon, inverseDC: (r.inverseDCSignificand, r.inverseDCExponent))
            }
        } else {
            if T.isActive { r.tracker.plain(power: pass.formula.power) }
            r.takePlainStep(to: pass.formula.step(r.orbit.z(r.m), r.dz, r.dcStep), power: pass.formula.power)
        }
        return finishStep(&r, rebaseOrbit: rebaseOrbit, rebaseBLA: rebaseBLA)
    }

    /// The step at an LA chain's start: the exact step u without dc, then the longest entry of
    /// the chain that holds for it, or (none holding) the plain step u + dc.
    @inlinable @inline(__always)
    func linearStep(_ r: inout PixelRun<D, T, B, O.Cursor>, chain: Int) {
        let u = pass.formula.step(r.orbit.z(r.m), r.dz, Complex<D>.zero)
        if T.isActive { r.tracker.plain(power: pass.formula.power) }
        guard let index = r.table.la.longest(chain: chain, u: u, dc: r.dcStep, maxLength: pass.maxIterations - r.n)
        else {
            r.takePlainStep(to: u + r.dcStep, power: pass.formula.power)
            return
        }
        let entry = r.table.la[index]
        if T.isActive {
            let b = pass.formula.addsDC ? entry.cc - entry.zc : Complex<D>.zero
            r.tracker.bla(
                a: Complex(entry.zc.re.floatExpValue, entry.zc.im.floatExpValue),
                b: Complex(b.re.floatExpValue, b.im.floatExpValue))
        }
        let load = entry.load(u, r.dcStep) * r.table.laLoadScale
        if !B.variance { r.addLoad(load) }
        let before = r.dz
        r.dz = entry.apply(u, r.dcStep)
        r.m += entry.length
        r.n += entry.length
        r.work.approximationSteps += 1
        // The exact step stretches dz/dc (and the error) by |f'(z)|, the linear part by |zc|.
        r.errorScale *= r.nextStretch * entry.stretchSignificand
        r.errorScaleExponent += entry.stretchExponent
        if B.variance {
            r.errorScaleExponent &+= r.nextStretchExponent
            (r.errorScale, r.errorScaleExponent) = PixelRun<D, T, B, O.Cursor>.laError(
                (r.errorScale, r.errorScaleExponent), entry: entry, before: before, u: u, load: load,
                next: (r.nextStretch, r.nextStretchExponent), epsilon: pass.epsilon,
                inverseDC: (r.inverseDCSignificand, r.inverseDCExponent), power: pass.formula.power)
        }
    }

    /// With `B.variance`: near a deep minibrot |z|^2 underflows in Double and the product
    /// with it would drop dz/dc's growth, so there |f'(z)|^2 with its own exponent.
    /// Takes and returns values: a call with the pixel's state `inout` would keep that state in
    /// memory across the whole step loop.
    @usableFromInline @inline(never)
    func tinyStretch(_ z: Complex<D>) -> (Double, Int) {
        let m2 = z.floatExpLengthSquared
        var t = FloatExp(Double(pass.formula.power * pass.formula.power))
        for _ in 1..<pass.formula.power { t = t * m2 }
        return t.parts
    }

    /// After a step: the escape, rebasing and glitch tests. True when the pixel is finished.
    @inlinable @inline(__always)
    func finishStep(_ r: inout PixelRun<D, T, B, O.Cursor>, rebaseOrbit: O.Cursor, rebaseBLA: BLAView<D>)
        -> Bool
    {
        r.work.steps += 1
        let Z = r.orbit.z(r.m)
        let z = Z + r.dz
        let x = z.re.leadingDouble, y = z.im.leadingDouble
        let r2 = x * x + y * y
        if T.isActive { r.tracker.observe(x: x, y: y) }
        if r2 > Escape.radiusSquared2 {
            if r.n2 == 0 { r.n2 = r.n }
            if r2 > Escape.radiusSquaredBig {
                // Its result and precision: `PerturbationPass.finish`.
                r.end = .escaped
                r.r2 = r2
                return true
            }
        }
        r.nextStretch = pass.formula.stretchSquared(r2)
        if B.variance {
            if r2 < 0x1p-900 {
                (r.nextStretch, r.nextStretchExponent) = tinyStretch(z)
            } else {
                r.nextStretchExponent = 0
            }
        }
        if r.errorScale > 0x1p600 {
            r.errorScale *= 0x1p-600
            r.errorScaleExponent += 600
        } else if r.errorScale < 0x1p-600 {
            r.errorScale *= 0x1p600
            r.errorScaleExponent -= 600
        }
        switch pass.mode {
        case .rebase:
            if r.m == r.last || z.lengthSquared < r.dz.lengthSquared {
                // Continue on the critical orbit, whose Z(0) = 0: dz = z.
                r.rebase(to: z, orbit: rebaseOrbit, table: rebaseBLA)
            }
        case .detect:
            let zx = Z.re.leadingDouble, zy = Z.im.leadingDouble
            let big = zx * zx + zy * zy
            if r2 < pass.tolerance * big {
                r.end = .bounded
                r.ratio = r2 / big
                return true
            }
            if r.m == r.last && r.n < pass.maxIterations {
                // Past |z| = 2 the orbit only grows: finishing from the reference's start
                // (dz = z - Z(0)) is exact enough; inside, an ended reference is a glitch.
                guard r2 > Escape.radiusSquared2 else {
                    r.end = .bounded
                    r.ratio = 0
                    return true
                }
                r.rebase(to: z, orbit: rebaseOrbit, table: rebaseBLA)
            }
        }
        return false
    }
}
