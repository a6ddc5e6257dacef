import Foundation
import FractalNumerics

/// A sequence of frames for a zoom movie: every frame a complete location file, rendered to
/// numbered PNGs (`frame-00042.png`). Two kinds (Documentation/Sequences.md):
/// - a zoom-out from one deep location (Kalles Fraktaler style): frame k has the deep
///   location's center and radius r0 * factor^k, so frame 0 is the deepest;
/// - frames between keyframes: within each pair the radius is interpolated logarithmically
///   and the center in proportion to the radius (so the deeper keyframe's center stays put on
///   the screen), iterations linearly; family, colour, size and engine settings snap to the
///   pair's first keyframe, and the last frame is the last keyframe.
/// Frames with the same center share one reference orbit (and BLA table where their views
/// bound |dc| alike) through a `ReferenceCache`. Before a slice renders, each such group gets
/// its deepest frame's orbit, so a slice's frames are byte-identical to the same frames of a
/// full run, whichever machine renders them.
public struct FrameSequence: Sendable {
    /// The frames in order, each a complete location file.
    public let frames: [LocationFile]

    /// A sequence of `frames` as given.
    public init(frames: [LocationFile]) { self.frames = frames }

    /// `count` frames zooming out of `deep` by `factor` (> 1) a frame.
    public static func zoomOut(from deep: LocationFile, count: Int, factor: Double) throws -> FrameSequence {
        guard count >= 1 && count <= 1_000_000 else { throw FathomError.badFrameCount(count) }
        guard factor > 1 && factor.isFinite else { throw FathomError.badFactor(factor) }
        let location = try deep.location()
        let precision = Precision(bits: 128)
        let r0: BigFloat
        do { r0 = try BigFloat(parsing: location.radius, precision: precision) } catch {
            throw LocationError.badNumber(field: "radius", text: location.radius)
        }
        let f = BigFloat(factor, precision: precision)
        var radius = r0
        var frames: [LocationFile] = []
        for k in 0..<count {
            var frame = deep
            frame.name = (deep.name ?? "frame") + "-\(k)"
            frame.radius = k == 0 ? location.radius : radius.decimalString(significantDigits: 20)
            frame.render = nil
            frames.append(frame)
            radius = radius * f
        }
        return FrameSequence(frames: frames)
    }

    /// Frames between `keyframes` (at least two), `perSegment` frames from each keyframe to
    /// the next, then the last keyframe.
    public static func between(_ keyframes: [LocationFile], perSegment: Int) throws -> FrameSequence {
        guard keyframes.count >= 2 else { throw FathomError.badFrameCount(keyframes.count) }
        let (total, overflow) = perSegment.multipliedReportingOverflow(by: keyframes.count - 1)
        guard perSegment >= 1 && !overflow && total <= 1_000_000 else { throw FathomError.badFrameCount(perSegment) }
        var frames: [LocationFile] = []
        for (a, b) in zip(keyframes, keyframes.dropFirst()) {
            let la = try a.location(), lb = try b.location()
            for j in 0..<perSegment {
                frames.append(try interpolate(a, la, lb, t: Double(j) / Double(perSegment), frame: frames.count))
            }
        }
        var last = keyframes.last!
        last.render = nil
        frames.append(last)
        return FrameSequence(frames: frames)
    }

    /// The frame at `t` in [0, 1) from `a` (location `la`) towards `lb`.
    static func interpolate(_ a: LocationFile, _ la: Location, _ lb: Location, t: Double, frame: Int)
        throws(LocationError) -> LocationFile
    {
        var out = a
        out.render = nil
        out.name = (a.name ?? "frame") + "-\(frame)"
        out.maxIterations = Int(
            (Double(la.maxIterations) + (Double(lb.maxIterations) - Double(la.maxIterations)) * t).rounded())
        guard t > 0 else { return out }
        // Enough bits for both centers' digits and 80 below the smaller radius.
        let r64a = try parse(la.radius, "radius", Precision(bits: 64)),
            r64b = try parse(lb.radius, "radius", Precision(bits: 64))
        let deepest = min(r64a.exponent, r64b.exponent)
        let digits = max(la.centerRe.count, la.centerIm.count, lb.centerRe.count, lb.centerIm.count)
        let precision = Precision(bits: max(Precision.forDecimalDigits(digits).bits, -deepest + 80, 128))
        let ra = r64a.floatExpValue, rb = r64b.floatExpValue
        // log2 r = (1 - t) log2 ra + t log2 rb.
        let log2r = (1 - t) * ra.log2Magnitude + t * rb.log2Magnitude
        let e = Int(log2r.rounded(.down))
        let r = FloatExp(significand: Math.pow(2, log2r - Double(e)), exponent: e)
        out.radius = BigFloat(r, precision: Precision(bits: 64)).decimalString(significantDigits: 17)
        // The center moves in proportion to the radius: c = c_deep + (c_other - c_deep) w,
        // w = (r - r_deep) / (r_other - r_deep), computed from the deeper end so that it is
        // exact relative to the distance that remains there.
        let aDeeper = ra < rb
        let (cDeep, cOther) =
            aDeeper
            ? ((la.centerRe, la.centerIm), (lb.centerRe, lb.centerIm))
            : ((lb.centerRe, lb.centerIm), (la.centerRe, la.centerIm))
        let (rDeep, rOther) = aDeeper ? (ra, rb) : (rb, ra)
        let w: FloatExp = rOther == rDeep ? FloatExp(aDeeper ? t : 1 - t) : (r - rDeep) / (rOther - rDeep)
        let wBig = BigFloat(w, precision: precision)
        let deepRe = try parse(cDeep.0, "center", precision), deepIm = try parse(cDeep.1, "center", precision)
        let re = deepRe + (try parse(cOther.0, "center", precision) - deepRe) * wBig
        let im = deepIm + (try parse(cOther.1, "center", precision) - deepIm) * wBig
        // Digits: the center's magnitude over the radius, and 25 more.
        let scale = max(1, max(Swift.abs(re.exponent), Swift.abs(im.exponent)))
        let keep = Int(Double(-r.exponent + scale) * 0.30103) + 25
        out.center = [re.decimalString(significantDigits: keep), im.decimalString(significantDigits: keep)]
        return out
    }

    static func parse(_ text: String, _ field: String, _ precision: Precision) throws(LocationError) -> BigFloat {
        do { return try BigFloat(parsing: text, precision: precision) } catch {
            throw .badNumber(field: field, text: text)
        }
    }

    /// The file name of frame k.
    public static func fileName(frame k: Int) -> String { String(format: "frame-%05d.png", k) }

    /// What rendering a slice did.
    public struct Report: Sendable {
        /// Frames rendered and written.
        public var framesRendered = 0
        /// Frames skipped by `resume` (already rendered and valid).
        public var framesSkipped = 0
        /// Reference orbits computed (including those that primed a group) and reused.
        public var orbitsComputed = 0
        /// Reference orbits found in the cache instead of computed.
        public var orbitsReused = 0
        /// Frames that also computed their reference's orbit at more bits for pixels the
        /// orbit's own rounding kept at risk (not cached: a frame's bytes must not depend on
        /// which frames rendered before it).
        public var finerOrbits = 0
        /// Wall-clock seconds, from the start of `render` to its end.
        public var seconds = 0.0
    }

    /// Renders `range` of the frames into `folder` at `settings` (each frame's size comes from
    /// `settings`; its engine settings are laid over them, as `ImageRender.render` does, also
    /// for the renders that prime the cache and resolve the colours); `frameDone` is called
    /// after each frame. A cache shared with the caller may be passed to keep orbits across
    /// calls.
    /// With `resume`, frames of the slice whose PNG is already in `folder` and valid
    /// (`isDone`) are skipped (`Report.framesSkipped`): a resubmitted slice renders only what
    /// is missing.
    public func render(
        _ range: ClosedRange<Int>, into folder: String, settings: RenderSettings, bitDepth: BitDepth = .eight,
        cache: ReferenceCache = ReferenceCache(), control: RenderControl? = nil, resume: Bool = false,
        frameDone: (Int, RenderResult) -> Void = { _, _ in }
    ) throws -> Report {
        let start = Date()
        var settings = settings
        settings.perturbation.cache = cache
        cache.storesOrbits = true
        // Progress over the whole slice: the priming renders take the first 5%, each frame an
        // equal share of the rest (`RenderControl.part`).
        try prime(range, settings: settings, control: control?.part(0...0.05))
        // From here a frame's own orbit serves no later frame: a slice's bytes are the full
        // run's (`ReferenceCache.storesOrbits`).
        cache.storesOrbits = false
        defer { cache.storesOrbits = true }
        let key = try keyColors(settings: settings)
        var report = Report()
        let share = 0.95 / Double(range.count)
        for k in range {
            let part = control?.part(
                0.05 + share * Double(k - range.lowerBound)...0.05 + share * Double(k - range.lowerBound + 1))
            var frame = frames[k]
            frame.width = settings.width
            frame.height = settings.height
            let path = folder + "/" + FrameSequence.fileName(frame: k)
            if resume && isDone(frame, at: path) {
                report.framesSkipped += 1
                part?.finish()
                continue
            }
            if let key, (frame.color ?? ColorSettings()).scale == .automatic {
                var color = frame.color ?? ColorSettings()
                (color.scale, color.quantiles, color.density, color.offset) = (
                    key.scale, key.quantiles, key.density, key.offset
                )
                frame.color = color
            }
            let result = try ImageRender.render(
                frame, settings: settings, to: path, bitDepth: bitDepth, control: part)
            report.framesRendered += 1
            if (result.report.perturbation?.finerOrbitPixels ?? 0) > 0 { report.finerOrbits += 1 }
            frameDone(k, result)
        }
        report.orbitsComputed = cache.computedOrbits
        report.orbitsReused = cache.orbitHits
        report.seconds = Date().timeIntervalSince(start)
        control?.finish()
        return report
    }

    /// `render(_:into:settings:bitDepth:cache:control:resume:frameDone:)` for async code: on a
    /// thread of its own, cancelled with the calling Task (`CancellationError`; the frames
    /// written so far stay, each whole; see `RenderControl.run(with:_:)`).
    public func render(
        _ range: ClosedRange<Int>, into folder: String, settings: RenderSettings, bitDepth: BitDepth = .eight,
        cache: ReferenceCache = ReferenceCache(), control: RenderControl? = nil, resume: Bool = false,
        frameDone: @escaping @Sendable (Int, RenderResult) -> Void = { _, _ in }
    ) async throws -> Report {
        try await RenderControl.run(with: control) { control in
            try render(
                range, into: folder, settings: settings, bitDepth: bitDepth, cache: cache, control: control,
                resume: resume, frameDone: frameDone)
        }
    }

    /// Checks every frame of `range`, then primes `settings.perturbation.cache` for them: each
    /// group of frames that share a center gets its deepest frame's orbit (a zero-pixel render
    /// computes the references the full render would), so that every frame of a slice uses the
    /// orbit of a full run. A cache that already holds those orbits (`ReferenceCache.add`, from a
    /// cluster's reference job) computes nothing. `fathom sequence --save-references` saves
    /// what this leaves in the cache.
    public func prime(_ range: ClosedRange<Int>, settings: RenderSettings, control: RenderControl? = nil) throws {
        guard range.lowerBound >= 0 && range.upperBound < frames.count else {
            throw FathomError.badFrameRange(range.lowerBound, range.upperBound, frames.count)
        }
        // Every frame of the slice is checked before any work (and before any file).
        for k in range { _ = try frames[k].location() }
        var primed = Set<[String]>()
        for k in range where !primed.contains(frames[k].center) {
            let group = frames.indices.filter { frames[$0].center == frames[k].center }
            let deepest = try group.min { try radiusValue($0) < radiusValue($1) }!
            var prime = settings
            try frames[deepest].engine?.apply(to: &prime)
            prime.onlyPixels = []
            _ = try Renderer.render(location: frames[deepest].location(), settings: prime, control: control)
            primed.insert(frames[k].center)
        }
    }

    /// Whether `path` holds a finished render of `frame`: a PNG that decodes whole (every
    /// chunk's CRC) of the frame's size, whose `fathom-location` chunk has the frame's view,
    /// iterations, guard bits and engine settings.
    public func isDone(_ frame: LocationFile, at path: String) -> Bool {
        guard let image = try? PNGReader.read(path: path), image.width == frame.width, image.height == frame.height,
            let chunks = try? PNGReader.textChunks(path: path),
            let text = chunks.first(where: { $0.0 == FathomInfo.locationKey })?.1,
            let stored = try? LocationFile.decode(Data(text.utf8), path: path)
        else { return false }
        return stored.center == frame.center && stored.radius == frame.radius
            && stored.maxIterations == frame.maxIterations && stored.family == frame.family
            && stored.power == frame.power && stored.juliaC == frame.juliaC && stored.rotation == frame.rotation
            && (stored.engine ?? LocationFile.EngineSettings()) == (frame.engine ?? LocationFile.EngineSettings())
            && (stored.guardBits ?? RenderSettings.defaultGuardBits)
                == (frame.guardBits ?? RenderSettings.defaultGuardBits)
    }

    /// The colour mapping of every frame whose colour is automatic: resolved once, from the
    /// deepest frame of the whole sequence rendered at a quarter of the frame size (a 16th of
    /// its pixels), so that colours do not jump from frame to frame and every slice resolves
    /// the same. Nil when no frame is automatic.
    func keyColors(settings: RenderSettings) throws -> ColorSettings? {
        guard frames.contains(where: { ($0.color ?? ColorSettings()).scale == .automatic }) else { return nil }
        let deepest = try frames.indices.min { try radiusValue($0) < radiusValue($1) }!
        let frame = frames[deepest]
        let location = try frame.location()
        var preview = settings
        try frame.engine?.apply(to: &preview)
        preview.width = Swift.max(1, (settings.width + 3) / 4)
        preview.height = Swift.max(1, (settings.height + 3) / 4)
        preview.extras = ExtrasRequest()
        let field = try Renderer.render(location: location, settings: preview, control: nil).field
        var color = frame.color ?? ColorSettings()
        if color.scale != .automatic { color = ColorSettings(smooth: color.smooth) }
        return color.resolved(for: field)
    }

    func radiusValue(_ k: Int) throws -> BigFloat {
        try FrameSequence.parse(frames[k].radius, "radius", Precision(bits: 64))
    }
}
