import ArbitraryPrecision

/// The orbits a render's passes iterate against.
struct References {
    /// The primary reference, and the point its deltas are taken from.
    var primary: Reference
    var point: BigComplex
    /// Julia's critical orbit (of z = 0), which pixels continue on after rebasing.
    var critical: Reference?
    /// Set when the primary reference is computed for one period P only, not to the iteration
    /// limit: a minibrot's nucleus (Z(P) = 0 to its precision; `primary.wraps`), or on a GPU
    /// the center's orbit ended where the view's period shows (`PeriodWatch.Ending`). A
    /// pixel reaching its end rebases to Z(0) = 0 with dz = z (exact at any reference), which
    /// wraps it around the cycle, so the reference costs P steps. The finer orbits of the
    /// later passes are computed as far.
    var period: Int? = nil
    /// Why the placement asked for is not the one used (`PerturbationReport.referenceNote`).
    var note: String? = nil
}

/// Phase 1: where the primary reference goes (a file's orbit; the nucleus of the minibrot in
/// view; the center; or the longest orbit of a 5 x 5 probe), Julia's critical orbit, and the
/// primary orbit saved where asked.
struct PlaceReferences<F: PerturbationFormula, D: PerturbationDelta> {
    let job: PerturbationJob<F, D>

    /// The farthest a reference may lie from the view's center, in pixels: 4 times the
    /// farthest pixel's distance, or 2^13 pixels where that is more. A Double (or FloatExp)
    /// delta of D pixels is rounded by D 2^-53 pixels, which 2^13 pixels keeps within 2^-40 of
    /// one, the default guard bits (a 5 x 5 window checked against MPFR with the orbit of its
    /// 800 x 800 view's center lies 240 pixels off). Every placement Fathom makes lies in the
    /// view. Past this bound the 53 bits of a delta are spent on the distance rather than the
    /// pixel's offset, and whole regions of the view would share one delta (an e50 orbit
    /// loaded for flake at 2e-50, 64 x 36, lies 1.9 10^51 pixels off).
    static func maximumDistance(_ viewport: Viewport) -> Double {
        max(4 * viewport.farthestPixelDistance, 8192)
    }

    func run() throws -> References {
        var references = try primary()
        // Whatever the orbit's origin (a file, a cache, a placement): its point must lie close
        // enough to the view for the deltas to resolve its pixels.
        let distance = job.viewport.distanceInPixels(of: references.point)
        guard distance <= Self.maximumDistance(job.viewport) else {
            throw RenderError.referenceTooFar(pixels: distance)
        }
        if job.juliaC != nil && references.critical == nil {
            references.critical = Reference(try job.orbits.orbit(at: BigComplex(precision: job.precision)))
        }
        if let slot = job.settings.referenceOutput {
            try slot.set.stage(references.primary.orbit.fileData(), at: slot.index)
        } else if let path = job.settings.saveReference {
            try references.primary.orbit.write(to: path)
        }
        return references
    }

    private func primary() throws -> References {
        let viewport = job.viewport, settings = job.settings
        if let path = settings.loadReference {
            let orbit = try ReferenceOrbit.read(from: path)
            guard
                orbit.serves(
                    power: job.formula.power, juliaC: job.juliaC, maxIterations: job.maxIterations,
                    precision: viewport.orbitPrecision)
            else { throw ReferenceFileError.mismatch(path: path) }
            let distance = viewport.distanceInPixels(of: orbit.point)
            guard distance <= Self.maximumDistance(viewport) else {
                throw ReferenceFileError.tooFar(path: path, pixels: distance, maximum: Self.maximumDistance(viewport))
            }
            return References(primary: Reference(orbit.limited(to: job.maxIterations)), point: orbit.point)
        }
        if job.juliaC != nil {
            // Julia rebases onto the orbit of the critical point 0: both at once.
            let both = try job.orbits.orbits(at: [job.center, BigComplex(precision: job.precision)])
            return References(primary: Reference(both[0]), point: job.center, critical: Reference(both[1]))
        }
        var note: String?
        let radius = viewport.radius.floatExpValue
        if job.formula.power == 2 && settings.placement == .nucleus {
            if let m = MinibrotFinder.find(near: job.center, radius: radius, maxPeriod: job.maxIterations),
                viewport.contains(m.nucleus)
            {
                return try nucleusReferences(m)
            }
            note = "no minibrot nucleus in view: the center is the reference"
        }
        if let watch = automaticWatch() {
            do {
                let orbit = try job.orbits.orbit(at: job.center, watch: watch)
                let ended = !orbit.escaped && orbit.count - 1 < job.maxIterations
                return References(
                    primary: Reference(orbit, periodic: ended), point: job.center, period: ended ? orbit.count - 1 : nil
                )
            } catch let found as PeriodWatch.Found {
                let search = {
                    MinibrotFinder.minibrot(period: found.period, near: job.center, radius: radius)
                }
                switch settings.cache?.minibrot(period: found.period, near: job.center, radius: radius, search: search)
                    ?? search()
                {
                case .found(let m) where m.size.log2Magnitude >= watch.minimumLog2Size && viewport.contains(m.nucleus):
                    return try nucleusReferences(m)
                case .notConverged(let p):
                    note = "Newton's method did not settle on a nucleus of period \(p): the center is the reference"
                default: break
                }
            }
        }
        let centered = try job.orbits.orbit(at: job.center)
        if settings.placement == .probe && centered.escaped, let better = try probe(beating: centered) {
            return References(primary: Reference(better), point: better.point)
        }
        return References(primary: Reference(centered), point: job.center, note: note)
    }

    /// The nucleus of `m` as the reference: one period, wrapped by rebasing, where pixels rebase
    /// at the reference's end (detect mode flags them there) and no orbit file is written (it
    /// must serve the limit it is read for).
    private func nucleusReferences(_ m: MinibrotFinder.Minibrot) throws -> References {
        let settings = job.settings
        let point = m.nucleus.rounded(to: job.precision)
        let wraps =
            settings.glitchMode == .rebase && settings.saveReference == nil && settings.referenceOutput == nil
            && m.period < job.maxIterations
        let orbit = try job.orbits.orbit(at: point, steps: wraps ? m.period : nil)
        return References(primary: Reference(orbit, wraps: wraps), point: point, period: wraps ? m.period : nil)
    }

    /// With `.automatic` (the default) placement: the watch that stops the center's orbit where
    /// a minibrot may dominate the view, so that its nucleus is tried instead. Only where that
    /// pays: z^2 + c, rebasing, no orbit file (then the nucleus orbit is one period, wrapped), a
    /// period at most 1/64 of the iteration limit, a minibrot at least 1/16 of the view's
    /// radius in size (its first guess from the center's orbit at least a quarter of that)
    /// with its nucleus in view, and Newton's method within `settings.newtonSeconds` by the per-step
    /// model. The watch runs on the center's orbit as it is computed: no MPFR step of its own.
    /// Where the minibrot dominates but Newton's method would take longer, the center's orbit
    /// ends at its period instead (`PeriodWatch.Ending.whereDominant`): pixels rebase onto its
    /// start there, so the reference costs one period (fshark30_e114514: 669,772 steps, not
    /// its limit of 200 million), and interior pixels go round it by LA up to the limit.
    /// Every backend takes this policy: a device form runs the interior proof on the host before
    /// its launch, so a wrapped nucleus buys a GPU what it buys the CPU (fs_deepmini_e433 on an
    /// H100: Documentation/Benchmarks.md, "The GPU's reference policy").
    private func automaticWatch() -> PeriodWatch? {
        let settings = job.settings
        guard
            settings.placement == .automatic && job.formula.power == 2
                && settings.glitchMode == .rebase && settings.saveReference == nil && settings.referenceOutput == nil
                && job.maxIterations >= 64 * 16
        else { return nil }
        let radius = job.viewport.radius.floatExpValue
        return PeriodWatch(
            radius: radius, maxPeriod: job.maxIterations / 64, minimumLog2Size: radius.log2Magnitude - 4,
            maxNewtonPeriod: Self.maxNewtonPeriod(bits: job.precision.bits, seconds: settings.newtonSeconds),
            ending: .whereDominant)
    }

    /// Newton's method's cost in periods of MPFR steps: about 10 Newton steps of z and dz/dc
    /// (about 3 plain steps each), then the size and the residual.
    static var newtonPeriods: Double { 40 }

    /// The longest period whose Newton's method fits `seconds` (`PerturbationSettings.newtonSeconds`,
    /// 60 by default) at `bits`, by the per-step model (`mpfrStepSeconds`): fs_deepmini_e433's
    /// period 57,853 at 1,509 bits comes to about 5 s; fshark30_e114514's 669,772 at 380,546 bits
    /// to days.
    static func maxNewtonPeriod(bits: Int, seconds: Double) -> Int {
        let perPeriodStep = newtonPeriods * PerturbationSettings.mpfrStepSeconds(bits: bits, power: 2)
        return Int(Swift.min(Double(Int.max / 2), (seconds / perPeriodStep).rounded(.down)))
    }

    /// The 5 x 5 probe, in scan order: the longest orbit wins; one that never escapes ends the
    /// search. Candidates are computed `threads` at a time. Nil: none beats `centered`.
    private func probe(beating centered: ReferenceOrbit) throws -> ReferenceOrbit? {
        var best = centered, improved = false
        let viewport = job.viewport
        let points = (0..<25).map { k -> BigComplex in
            let i = k % 5, j = k / 5
            return viewport.exactPoint(
                x: (viewport.width - 1) * (2 * i + 1) / 10, y: (viewport.height - 1) * (2 * j + 1) / 10
            ).rounded(to: job.precision)
        }
        var k = 0
        while k < points.count {
            let batch = try job.orbits.orbits(at: Array(points[k..<min(points.count, k + max(1, job.threads))]))
            k += batch.count
            for candidate in batch {
                if candidate.count > best.count || (!candidate.escaped && best.escaped) {
                    best = candidate
                    improved = true
                }
                if !best.escaped { return best }
            }
        }
        return improved ? best : nil
    }
}
