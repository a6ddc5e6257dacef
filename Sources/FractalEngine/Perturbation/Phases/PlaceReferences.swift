import ArbitraryPrecision

/// The orbits a render's passes iterate against.
struct References {
    /// The primary reference, and the point its deltas are taken from.
    var primary: Reference
    var point: BigComplex
    /// Julia's critical orbit (of z = 0), which pixels continue on after rebasing.
    var critical: Reference?
    /// Set when the primary reference is a minibrot's nucleus computed for one period P only
    /// (Z(P) = 0 to its precision): a pixel reaching its end rebases to Z(0) = 0 with dz = z,
    /// which wraps it around the cycle, so the reference costs P steps, not the iteration limit.
    var period: Int? = nil
    /// Why the placement asked for is not the one used (`PerturbationReport.referenceNote`).
    var note: String? = nil
}

/// Phase 1: where the primary reference goes (a file's orbit; the nucleus of the minibrot in
/// view; the center; or the longest orbit of a 5 x 5 probe), Julia's critical orbit, and the
/// primary orbit saved where asked.
struct PlaceReferences<F: PerturbationFormula, D: PerturbationDelta> {
    let job: PerturbationJob<F, D>

    func run() throws -> References {
        var references = try primary()
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
            return References(primary: Reference(orbit.limited(to: job.maxIterations)), point: orbit.point)
        }
        if job.juliaC != nil {
            // Julia rebases onto the orbit of the critical point 0: both at once.
            let both = try job.orbits.orbits(at: [job.center, BigComplex(precision: job.precision)])
            return References(primary: Reference(both[0]), point: job.center, critical: Reference(both[1]))
        }
        var note: String?
        if settings.placement == .nucleus && job.formula.power == 2 {
            if let m = MinibrotFinder.find(
                near: job.center, radius: viewport.radius.floatExpValue, maxPeriod: job.maxIterations),
                viewport.contains(m.nucleus)
            {
                let point = m.nucleus.rounded(to: job.precision)
                // One period, wrapped by rebasing: only where pixels rebase at the reference's
                // end (detect mode flags them there), and not for an orbit file, which must serve
                // the limit it is read for.
                let wraps =
                    settings.glitchMode == .rebase && settings.saveReference == nil
                    && settings.referenceOutput == nil && m.period < job.maxIterations
                let orbit = try job.orbits.orbit(at: point, steps: wraps ? m.period : nil)
                return References(
                    primary: Reference(orbit, wraps: wraps), point: point, period: wraps ? m.period : nil)
            }
            note = "no minibrot nucleus in view: the center is the reference"
        }
        let centered = try job.orbits.orbit(at: job.center)
        if settings.placement == .probe && centered.escaped, let better = try probe(beating: centered) {
            return References(primary: Reference(better), point: better.point)
        }
        return References(primary: Reference(centered), point: job.center, note: note)
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
