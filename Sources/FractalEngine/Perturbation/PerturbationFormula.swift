import FractalNumerics

// Perturbation steps (Documentation/Design.md section 5). With the reference value Z = Z(m) and the pixel's
// delta dz (its z = Z + dz) and dc (its c = C + dc):
//   Mandelbrot:  dz <- (2Z + dz) dz + dc
//   Multibrot p: dz <- sum_{k=1..p} binom(p, k) Z^(p-k) dz^k + dc, by Horner's rule in dz
//   Julia:       dz <- (2Z + dz) dz          (the pixel enters through dz(0); there is no dc)

/// One perturbation step of a family, generic over the delta type: dz <- dz H(Z, dz) + dc.
@usableFromInline package protocol PerturbationFormula: Sendable {
    /// The power p of the family's leading term (2 for Mandelbrot and Julia).
    var power: Int { get }
    /// Whether dc enters each step (false for Julia).
    var addsDC: Bool { get }
    /// z^p + c's binom(p, k), k = 0 ... p, for Horner's rule (nil: z^2, with or without dc).
    var binomialRow: [Double]? { get }
    /// `factor` H(Z, `inner`) + dc. Kernels call `step(Z, dz, dc)`, which passes dz as both:
    /// through that always-inlined forwarder the first pass of flake 1e-50 at 640x360 runs in
    /// 405 ms, called as the requirement itself in 430 ms (Documentation/Benchmarks.md).
    func step<D: DeltaScalar>(_ Z: Complex<D>, factor: Complex<D>, inner: Complex<D>, _ dc: Complex<D>) -> Complex<D>
}

extension PerturbationFormula {
    /// The step dz <- dz H(Z, dz) + dc.
    @inlinable @inline(__always)
    package func step<D: DeltaScalar>(_ Z: Complex<D>, _ dz: Complex<D>, _ dc: Complex<D>) -> Complex<
        D
    > {
        step(Z, factor: dz, inner: dz, dc)
    }
}

extension PerturbationFormula {
    /// |f'(z)|^2 from |z|^2: how much one step stretches |dz/dc|^2 (p^2 |z|^(2(p-1))).
    @inlinable @inline(__always)
    package func stretchSquared(_ r2: Double) -> Double {
        if power == 2 { return 4 * r2 }
        var t = Double(power * power)
        for _ in 1..<power { t *= r2 }
        return t
    }
}

/// z^2 + c: Mandelbrot (with dc) and Julia (without).
@usableFromInline package struct QuadraticPerturbation: PerturbationFormula {
    /// Whether dc enters each step: true for Mandelbrot, false for Julia.
    @usableFromInline package let addsDC: Bool
    /// The quadratic step, with dc added (Mandelbrot) or not (Julia).
    @usableFromInline package init(addsDC: Bool) { self.addsDC = addsDC }
    /// The power: 2.
    @inlinable package var power: Int { 2 }
    /// nil: the quadratic step needs no binomial row.
    @usableFromInline package var binomialRow: [Double]? { nil }

    /// (2Z + inner) factor + dc.
    @inlinable @inline(__always)
    package func step<D: DeltaScalar>(
        _ Z: Complex<D>, factor: Complex<D>, inner: Complex<D>, _ dc: Complex<D>
    )
        -> Complex<D>
    {
        let t = Complex(Z.re.doubled + inner.re, Z.im.doubled + inner.im) * factor
        return addsDC ? t + dc : t
    }
}

/// z^p + c for p >= 2: the binomial expansion of (Z + dz)^p - Z^p, plus dc.
@usableFromInline package struct MultibrotPerturbation: PerturbationFormula {
    /// The exponent p, 2 or more.
    @usableFromInline package let power: Int
    /// binomials[k] = binom(power, k), k = 0...power.
    @usableFromInline package let binomials: [Double]
    /// Always true: Multibrot's c is the pixel.
    @usableFromInline package var addsDC: Bool { true }
    /// `binomials`.
    @usableFromInline package var binomialRow: [Double]? { binomials }

    /// The step for z^`power` + c, `power` >= 2, with its binomial row computed once.
    @usableFromInline package init(power: Int) {
        self.power = power
        var row = [1.0]
        for k in 1...power { row.append(row[k - 1] * Double(power - k + 1) / Double(k)) }
        binomials = row
    }

    /// Horner in dz: dz H with H = b1 Z^(p-1) + dz (b2 Z^(p-2) + ... + dz bp), bk = binom(p, k)
    /// (`factor` the first dz, `inner` the others).
    @inlinable @inline(__always)
    package func step<D: DeltaScalar>(
        _ Z: Complex<D>, factor: Complex<D>, inner: Complex<D>, _ dc: Complex<D>
    )
        -> Complex<D>
    {
        var h = Complex<D>(D.one, .zero)  // bp = 1
        var zPower = Z  // Z^(p-k) for k = p - 1
        var k = power - 1
        while k >= 1 {
            h = zPower * D(binomials[k]) + inner * h
            zPower = zPower * Z
            k -= 1
        }
        return factor * h + dc
    }
}
