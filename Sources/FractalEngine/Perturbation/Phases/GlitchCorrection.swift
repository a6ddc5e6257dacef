import ArbitraryPrecision

/// Phase 4 (detect mode): the pixels Pauldelbrot's test flagged in the first pass are rendered
/// again from new references, one at a time in the largest 4-connected group of flagged
/// pixels, until none is left, the budget is spent or a reference fixes nothing.
struct GlitchCorrection<F: PerturbationFormula, D: PerturbationDelta> {
    let job: PerturbationJob<F, D>
    let first: ReferencePass<F, D>
    let buffers: PassBuffers
    let references: References

    struct Outcome {
        /// Every reference point used, the primary's first.
        var points: [BigComplex]
        /// Pixels flagged by the first pass, and those still flagged at the end.
        var flagged: Int
        var uncorrected: Int
    }

    func run(into field: inout IterationField) throws -> Outcome {
        var points = [references.point]
        guard buffers.detects else { return Outcome(points: points, flagged: 0, uncorrected: 0) }
        var glitched = (job.only ?? Array(0..<buffers.count)).filter { buffers.isGlitched($0) }
        let flagged = glitched.count
        var budget = job.settings.referenceBudget
        while !glitched.isEmpty && budget > 0 {
            if job.control?.isCancelled == true { throw RenderError.cancelled }
            budget -= 1
            let pick = pickPixel(
                in: Self.largestGroup(
                    glitched, width: job.viewport.width, height: job.viewport.height,
                    isFlagged: buffers.isGlitched))
            let point = job.viewport.exactPoint(x: pick % job.viewport.width, y: pick / job.viewport.width)
            let reference = Reference(try job.orbits.orbit(at: point.rounded(to: job.precision)))
            points.append(reference.orbit.point)
            try first.run("glitch", reference, at: reference.orbit.point, subset: glitched, into: &field)
            let before = glitched.count
            glitched = glitched.filter { buffers.isGlitched($0) }
            // No progress, even at the reference itself: stop.
            if glitched.count == before && buffers.isGlitched(pick) { break }
        }
        return Outcome(points: points, flagged: flagged, uncorrected: glitched.count)
    }

    /// The pixel of `group` nearest to its glitch's cause: smallest |z|^2 / |Z|^2; for pixels
    /// that outlived an escaping reference (ratio 0) the one nearest the group's centroid, where
    /// a longer-lived orbit (a minibrot's) is likeliest.
    private func pickPixel(in group: [Int]) -> Int {
        let ratios = buffers.ratios
        let pick = group.min { ratios[$0] < ratios[$1] }!
        guard ratios[pick] == 0 else { return pick }
        let w = job.viewport.width
        let cx = Double(group.reduce(0) { $0 + $1 % w }) / Double(group.count)
        let cy = Double(group.reduce(0) { $0 + $1 / w }) / Double(group.count)
        func distance(_ p: Int) -> Double {
            (Double(p % w) - cx) * (Double(p % w) - cx) + (Double(p / w) - cy) * (Double(p / w) - cy)
        }
        return group.min { distance($0) < distance($1) }!
    }

    /// The largest 4-connected group among the flagged pixels `glitched`.
    static func largestGroup(_ glitched: [Int], width: Int, height: Int, isFlagged: (Int) -> Bool) -> [Int] {
        var seen = Set<Int>()
        var best: [Int] = []
        for startPixel in glitched where !seen.contains(startPixel) {
            var group: [Int] = []
            var stack = [startPixel]
            seen.insert(startPixel)
            while let p = stack.popLast() {
                group.append(p)
                let x = p % width, y = p / width
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
                where nx >= 0 && ny >= 0 && nx < width && ny < height {
                    let q = ny * width + nx
                    if isFlagged(q) && !seen.contains(q) {
                        seen.insert(q)
                        stack.append(q)
                    }
                }
            }
            if group.count > best.count { best = group }
        }
        return best
    }
}
