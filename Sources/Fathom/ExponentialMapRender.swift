import ArbitraryPrecision
import Foundation
import FractalNumerics

/// An exponential map of a location (`ExponentialMap`): the zoom from radius 2 in to the
/// location's radius as one strip, rendered band by band, outermost first, each band handed
/// to the caller as it finishes, so that a strip of millions of rows never lies in memory
/// (Documentation/Sequences.md, "Exponential maps").
///
/// One reference orbit serves every band: the location center's, computed first for the
/// innermost band (a render of no pixels) at the precision it needs, then found in the
/// `ReferenceCache` by every band outside it. The reference is always the center (the nucleus
/// of a minibrot that dominates one band would not be the one of another).
public struct ExponentialMapRender: Sendable {
    /// The location file the map is of (its engine settings apply to every band).
    public let file: LocationFile
    /// The file's location, checked.
    public let location: Location
    /// The map's geometry: its width, its rows and the radius of each.
    public let map: ExponentialMap

    /// How the map's rows lie: one strip of square pixels from radius 2 in (`fathom expmap
    /// --exr/--npy`), or Kalles Fraktaler's files of one octave each (`--kf-frames`).
    public enum Layout: Sendable {
        /// One strip of square pixels from radius 2 in.
        case strip
        /// Kalles Fraktaler's files of one octave each.
        case keyframes
    }

    /// The map of `file`'s location `width` columns around, in `layout`.
    public init(_ file: LocationFile, width: Int, layout: Layout = .strip) throws {
        self.file = file
        location = try file.location()
        let radius: BigFloat
        do { radius = try BigFloat(parsing: location.radius, precision: Precision(bits: 64)) } catch {
            throw LocationError.badNumber(field: "radius", text: location.radius)
        }
        let log2Radius = radius.floatExpValue.log2Magnitude
        switch layout {
        case .strip: map = try ExponentialMap(width: width, log2Radius: log2Radius, radius: location.radius)
        case .keyframes:
            map = try ExponentialMap(keyframeWidth: width, log2Radius: log2Radius, radius: location.radius)
        }
    }

    /// What rendering the map did.
    public struct Report: Sendable {
        /// Bands rendered.
        public var bands = 0
        /// Wall-clock seconds, from the start of `render` to its end.
        public var seconds = 0.0
        /// Iterations the bands represent, summed (`RenderReport.iterations`).
        public var iterations = 0
        /// Reference orbits computed and found in the cache.
        public var orbitsComputed = 0
        /// Reference orbits found in the cache instead of computed.
        public var orbitsReused = 0
        /// Pixels no pass could settle (`PerturbationReport.unsettledPixels`), as (column, row)
        /// of the map, the first 100 of them.
        public var unsettledPixels = 0
        /// The first 100 unsettled pixels, as (column, row) of the map.
        public var unsettledList: [PixelPosition] = []
        /// The paths the bands took, outermost first (one entry per change).
        public var paths: [(rows: Range<Int>, path: String)] = []
    }

    /// Renders every band at `settings` (their size is the map's; the file's engine settings
    /// are laid over them), calling `band` with each band's rows and result in row order. With
    /// `settings.extras.derivative`, the bands' distance estimates are in pixels of each row
    /// (`inRowPixels`).
    public func render(
        settings: RenderSettings, cache: ReferenceCache = ReferenceCache(), control: RenderControl? = nil,
        band: (Range<Int>, RenderResult) throws -> Void
    ) throws -> Report {
        let start = Date()
        var settings = settings
        try file.engine?.apply(to: &settings)
        settings.perturbation.cache = cache
        settings.perturbation.placement = .center
        settings.width = map.width
        let bands = map.bands()
        func bandSettings(_ rows: Range<Int>) -> RenderSettings {
            var s = settings
            s.projection = .exponential(map, rows: rows)
            s.height = rows.count
            return s
        }
        // Every band is checked (its size, its precision) before any work.
        for rows in bands { _ = try Renderer.plan(location: location, settings: bandSettings(rows)) }
        var prime = bandSettings(bands[bands.count - 1])
        prime.onlyPixels = []
        // Progress over the whole map: the priming render takes the first 5%, each band its
        // share of the rows (`RenderControl.part`).
        _ = try Renderer.render(location: location, settings: prime, control: control?.part(0...0.05))
        var report = Report()
        let height = Double(map.height)
        for rows in bands {
            if control?.isCancelled == true { throw RenderError.cancelled }
            let part = control?.part(
                0.05 + 0.95 * Double(rows.lowerBound) / height...0.05 + 0.95 * Double(rows.upperBound) / height)
            var result = try Renderer.render(location: location, settings: bandSettings(rows), control: part)
            if var extras = result.field.extras, !extras.distance.isEmpty {
                ExponentialMapRender.inRowPixels(&extras.distance, map: map, rows: rows)
                result.field.extras = extras
            }
            report.bands += 1
            report.iterations += result.report.iterations
            let path = result.report.path.rawValue
            if report.paths.last?.path == path {
                report.paths[report.paths.count - 1].rows = report.paths.last!.rows.lowerBound..<rows.upperBound
            } else {
                report.paths.append((rows, path))
            }
            if let p = result.report.perturbation {
                report.unsettledPixels += p.unsettledPixels
                for pixel in p.unsettledList where report.unsettledList.count < 100 {
                    report.unsettledList.append(PixelPosition(x: pixel.x, y: rows.lowerBound + pixel.y))
                }
            }
            try band(rows, result)
        }
        report.orbitsComputed = cache.computedOrbits
        report.orbitsReused = cache.orbitHits
        report.seconds = Date().timeIntervalSince(start)
        control?.finish()
        return report
    }

    /// A band's distance estimates (in pixels of its innermost row, as the engine gives them for
    /// the band's viewport) in pixels of each one's own row: the map's square pixels, 2 pi / W of
    /// the row's radius, so a distance means the same on every row of the map.
    static func inRowPixels(_ distance: inout [Float], map: ExponentialMap, rows: Range<Int>) {
        let innermost = map.log2Radius(row: rows.upperBound - 1)
        for y in 0..<rows.count {
            let scale = Float(Math.exp2(innermost - map.log2Radius(row: rows.lowerBound + y)))
            for i in y * map.width..<(y + 1) * map.width { distance[i] *= scale }
        }
    }
}
