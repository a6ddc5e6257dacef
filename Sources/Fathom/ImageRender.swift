import Foundation

/// One call from a location file to a PNG: render, colour, store the location (with how it
/// was rendered) in the PNG's `fathom-location` chunk, write atomically.
public enum ImageRender {
    /// Renders `file` (its size, colour and engine settings already in it or in `settings`)
    /// and writes the PNG to `path`; returns the render's result.
    @discardableResult
    public static func render(_ file: LocationFile, settings: RenderSettings, to path: String, bitDepth: Int = 8,
                              control: RenderControl? = nil) throws -> RenderResult {
        let location = try file.location()
        let k = file.supersample ?? 1
        guard (1...4).contains(k) else { throw LocationError.badSupersample(k) }
        // k x k samples a pixel: the field of a k times larger image with the same radius,
        // whose pixel centers are the samples' (the radius spans the shorter side).
        var sampled = settings
        sampled.width *= k
        sampled.height *= k
        let color = file.color ?? ColorSettings()
        sampled.extras = color.extrasRequest
        try ImageSize.validate(width: sampled.width, height: sampled.height)
        let result = try Renderer.render(location: location, settings: sampled, control: control)
        let rootCount: Int
        if case .newton(let poly) = location.family { rootCount = poly.degree } else { rootCount = 0 }
        // The colours resolved from the field are what the PNG stores: rendering the stored
        // location again gives the same colours, whatever its size.
        let resolved = color.resolved(for: result.field, rootCount: rootCount)
        let image = Colorizer.image(result.field, rootCount: rootCount, settings: resolved, bitDepth: bitDepth, supersample: k)
        try PNGWriter.write(image, to: path, text: [(FathomInfo.locationKey, stored(file, color: resolved, settings: settings, result: result).jsonString())])
        return result
    }

    /// The location file stored with an image: the view, size, colour, engine settings and
    /// what the renderer did.
    public static func stored(_ file: LocationFile, color: ColorSettings, settings: RenderSettings, result: RenderResult) -> LocationFile {
        var stored = file
        stored.width = settings.width
        stored.height = settings.height
        stored.color = color
        if stored.engine == LocationFile.EngineSettings() { stored.engine = nil }
        let r = result.report
        stored.render = .init(path: r.path.rawValue, requiredBits: r.requiredBits, fathomVersion: FathomInfo.version,
                              deltaType: r.perturbation?.deltaType.rawValue, glitchMode: r.perturbation?.glitchMode.rawValue,
                              precisionBits: r.perturbation?.precisionBits,
                              references: r.perturbation?.references.map { [$0.re, $0.im] })
        return stored
    }
}
