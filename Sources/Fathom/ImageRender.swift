import Foundation

/// One call from a location file to a PNG: render, colour, store the location (with how it
/// was rendered) in the PNG's `fathom-location` chunk, write. The PNG, the optional NumPy
/// file and the optional reference orbit file (`settings.perturbation.saveReference`) are one
/// `OutputSet`: resolved before the render starts (a path that must not be written, or two
/// outputs on one file, fail at once), and all written or none.
public enum ImageRender {
    /// Renders `file` and writes the PNG to `path` (and the iteration data to `npy`); returns
    /// the render's result. The size and guard bits are `settings`', or with nil the file's
    /// own (`LocationFile.renderSettings(over:)`: 1280 x 720 where it gives none); the file's
    /// colour and engine settings apply either way (each engine setting the file gives
    /// replaces `settings`' own, as `LocationFile.EngineSettings.apply(to:)` does).
    @discardableResult
    public static func render(
        _ file: LocationFile, settings: RenderSettings? = nil, to path: String, npy: String? = nil,
        bitDepth: BitDepth = .eight,
        control: RenderControl? = nil
    ) throws -> RenderResult {
        let settings = try settings ?? file.renderSettings()
        let outputs = try Outputs(png: path, npy: npy, reference: settings.perturbation.saveReference)
        let result = try render(
            file, settings: settings, into: outputs.set, png: 0, npy: outputs.npy, reference: outputs.reference,
            bitDepth: bitDepth, control: control)
        try outputs.set.commit()
        return result
    }

    /// `render(_:settings:to:npy:bitDepth:control:)` for async code: on a thread of its own,
    /// cancelled with the calling Task (`CancellationError`, nothing written; see
    /// `RenderControl.run(with:_:)`).
    @discardableResult
    public static func render(
        _ file: LocationFile, settings: RenderSettings? = nil, to path: String, npy: String? = nil,
        bitDepth: BitDepth = .eight, control: RenderControl? = nil
    ) async throws -> RenderResult {
        try await RenderControl.run(with: control) { control in
            try render(file, settings: settings, to: path, npy: npy, bitDepth: bitDepth, control: control)
        }
    }

    /// `render(_:settings:to:npy:bitDepth:control:)` with `file:` URLs (`OutputError.cannotCreate`
    /// for any other).
    @discardableResult
    public static func render(
        _ file: LocationFile, settings: RenderSettings? = nil, to url: URL, npy: URL? = nil,
        bitDepth: BitDepth = .eight, control: RenderControl? = nil
    ) throws -> RenderResult {
        try render(
            file, settings: settings, to: try OutputError.path(of: url),
            npy: try npy.map { url throws(OutputError) in try OutputError.path(of: url) },
            bitDepth: bitDepth, control: control)
    }

    /// The async form of the URL render.
    @discardableResult
    public static func render(
        _ file: LocationFile, settings: RenderSettings? = nil, to url: URL, npy: URL? = nil,
        bitDepth: BitDepth = .eight, control: RenderControl? = nil
    ) async throws -> RenderResult {
        let path = try OutputError.path(of: url)
        let npyPath = try npy.map { url throws(OutputError) in try OutputError.path(of: url) }
        return try await render(file, settings: settings, to: path, npy: npyPath, bitDepth: bitDepth, control: control)
    }

    /// A render's outputs, resolved by the output rules before any work: the PNG (index 0),
    /// then the NumPy file and the reference orbit when asked for.
    public struct Outputs {
        /// The outputs, staged and then committed together.
        public let set: OutputSet
        /// The NumPy file's index in `set` (nil: not asked for).
        public let npy: Int?
        /// The reference orbit file's index in `set` (nil: not asked for).
        public let reference: Int?

        /// The outputs for the PNG at `png` and, when given, `npy` and `reference`; throws
        /// `OutputError` when the output rules refuse a path or two outputs share one file.
        public init(png: String, npy: String?, reference: String?) throws(OutputError) {
            let paths = [png] + [npy, reference].compactMap { $0 }
            set = try OutputSet(paths)
            self.npy = npy == nil ? nil : 1
            self.reference = reference == nil ? nil : paths.count - 1
        }
    }

    /// Renders `file` (with its engine settings laid over `settings`) and stages the PNG (and
    /// the iteration data, and the reference orbit) in `outputs` at the given indices; the
    /// caller commits them with its other outputs.
    @discardableResult
    public static func render(
        _ file: LocationFile, settings: RenderSettings, into outputs: OutputSet, png: Int, npy: Int? = nil,
        reference: Int? = nil, bitDepth: BitDepth = .eight, control: RenderControl? = nil
    ) throws -> RenderResult {
        let made = try image(
            file, settings: settings, reference: reference.map { OutputSlot(outputs, $0) }, bitDepth: bitDepth,
            control: control)
        try PNGWriter.stage(made.image, text: [(FathomInfo.locationKey, made.stored)], in: outputs, at: png)
        if let npy { try outputs.stage(NPYWriter.data(made.result.field), at: npy) }
        if control?.isCancelled == true { throw RenderError.cancelled }
        return made.result
    }

    /// An image rendered in memory: what `render` writes, as bytes.
    public struct Encoded: Sendable {
        /// The render's result (the field and the report).
        public let result: RenderResult
        /// The colours resolved from the field: those the image and its stored location have.
        public let color: ColorSettings
        /// The PNG, with the location in its `fathom-location` chunk: the bytes `render` writes.
        public let png: Data
    }

    /// Renders `file` as `render(_:settings:to:npy:bitDepth:control:)` does, and returns the
    /// PNG's bytes instead of writing them (a server's answer, a preview). The reference orbit
    /// is not saved (`settings.perturbation.saveReference` is not read).
    public static func encoded(
        _ file: LocationFile, settings: RenderSettings, bitDepth: BitDepth = .eight, control: RenderControl? = nil
    ) throws -> Encoded {
        let made = try image(file, settings: settings, reference: nil, bitDepth: bitDepth, control: control)
        let png = try PNGWriter.encode(made.image, text: [(FathomInfo.locationKey, made.stored)])
        if control?.isCancelled == true { throw RenderError.cancelled }
        return Encoded(result: made.result, color: made.color, png: png)
    }

    /// `encoded(_:settings:bitDepth:control:)` for async code: on a thread of its own,
    /// cancelled with the calling Task (`CancellationError`; see `RenderControl.run(with:_:)`).
    public static func encoded(
        _ file: LocationFile, settings: RenderSettings, bitDepth: BitDepth = .eight, control: RenderControl? = nil
    ) async throws -> Encoded {
        try await RenderControl.run(with: control) { control in
            try encoded(file, settings: settings, bitDepth: bitDepth, control: control)
        }
    }

    /// The one render of `render` and `encoded`: the field at `file.supersample` samples a
    /// pixel, its colours resolved, the image and the location it stores (JSON); the primary
    /// reference orbit staged in `reference` when given.
    private static func image(
        _ file: LocationFile, settings: RenderSettings, reference: OutputSlot?, bitDepth: BitDepth,
        control: RenderControl?
    ) throws -> (result: RenderResult, color: ColorSettings, image: RGBImage, stored: String) {
        let location = try file.location()
        let k = file.supersample ?? 1
        guard (1...4).contains(k) else { throw FathomError.badSupersample(k) }
        // k x k samples a pixel: the field of a k times larger image with the same radius,
        // whose pixel centers are the samples' (the radius spans the shorter side).
        var sampled = settings
        try file.engine?.apply(to: &sampled)
        // The image's size is checked first: k times a size past the limits could overflow.
        try ImageSize.validate(width: settings.width, height: settings.height)
        sampled.width *= k
        sampled.height *= k
        let color = file.color ?? ColorSettings()
        sampled.extras = color.extrasRequest
        try ImageSize.validate(width: sampled.width, height: sampled.height)
        if let reference {
            let plan = try Renderer.plan(location: location, settings: sampled)
            // A view that takes no reference orbit has none to save.
            guard plan.referenceBits != nil else { throw RenderError.noReferenceOrbit(path: plan.path.rawValue) }
            sampled.perturbation.referenceOutput = reference
        }
        let result = try Renderer.render(location: location, settings: sampled, control: control)
        // The colours resolved from the field are what the PNG stores: rendering the stored
        // location again gives the same colours, whatever its size.
        let resolved = color.resolved(for: result.field)
        let image = try Colorizer.image(result.field, settings: resolved, bitDepth: bitDepth, supersample: k)
        let stored = stored(file, color: resolved, settings: settings, result: result).jsonString()
        return (result, resolved, image, stored)
    }

    /// The location file stored with an image: the view, size, colour, engine settings and
    /// what the renderer did.
    public static func stored(
        _ file: LocationFile, color: ColorSettings, settings: RenderSettings, result: RenderResult
    ) -> LocationFile {
        var stored = file
        stored.width = settings.width
        stored.height = settings.height
        stored.color = color
        if stored.engine == LocationFile.EngineSettings() { stored.engine = nil }
        let r = result.report
        stored.render = .init(
            path: r.path.rawValue, requiredBits: r.requiredBits, fathomVersion: FathomInfo.version,
            deltaType: r.perturbation?.deltaType.rawValue, glitchMode: r.perturbation?.glitchMode.rawValue,
            precisionBits: r.perturbation?.precisionBits,
            references: r.perturbation?.references.map { [$0.re, $0.im] })
        return stored
    }
}
