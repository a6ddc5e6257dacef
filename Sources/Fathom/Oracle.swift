import Foundation

/// An oracle file (../shared/oracle/README.md): a location, its image size, and exact escape
/// data for sampled pixels, computed by direct MPFR iteration.
public struct OracleFile: Sendable, Decodable {
    /// The location's name.
    public var name: String
    /// The family: `mandelbrot`, `multibrot` or `julia`.
    public var family: Family.Kind
    /// The power p (2 for `mandelbrot` and `julia`).
    public var power: Int
    /// Julia's parameter c as [re, im] decimal strings (nil for the other families).
    public var juliaC: [String]?
    /// The center as [re, im] decimal strings.
    public var center: [String]
    /// Half of the shorter image side in complex units, a decimal string.
    public var radius: String
    /// The image width in pixels the pixels were sampled from.
    public var width: Int
    /// The image height in pixels the pixels were sampled from.
    public var height: Int
    /// The iteration limit.
    public var maxIterations: Int
    /// The precision of the coarser MPFR run, ceil(-log2 s) + 64 bits for pixel spacing s; the
    /// finer run, whose data the file holds, took twice that plus 64.
    public var precisionBits: Int
    /// The sampled pixels with their escape data.
    public var pixels: [Pixel]

    /// One sampled pixel and its escape data, from the finer MPFR run.
    public struct Pixel: Sendable, Decodable {
        /// The column, 0 the leftmost.
        public var x: Int
        /// The row, 0 the top.
        public var y: Int
        /// The first n >= 1 with |z(n)| > 2 (nil: no escape within `maxIterations`).
        public var n2: Int?
        /// The first n >= 1 with |z(n)| > 65536 (nil: none within `maxIterations`).
        public var nBig: Int?
        /// ln |z(nBig)| (nil when `nBig` is nil).
        public var logAbsZ: Double?
        /// The smooth count nBig + 1 - ln(ln |z(nBig)| / ln 65536) / ln p (nil when `nBig` is nil).
        public var smooth: Double?
        /// Whether the two MPFR runs disagree on `n2` or `nBig`: such a pixel is not compared.
        public var unstable: Bool
        /// Whether the fractional part is hypersensitive: the two runs' ln |z(nBig)| (for
        /// `Verifier.check`, their smooth values) differ by more than 1e-6. The pixel's smooth
        /// value is then not compared; its counts are.
        public var smoothUnstable: Bool
    }

    /// `read(path:)` for a `file:` URL (`FileError.unreadable` for any other).
    public static func read(url: URL) throws(FileError) -> OracleFile {
        try read(path: try FileError.path(of: url))
    }

    /// Reads the oracle JSON file at `path`; throws `FileError` when it cannot be read or decoded,
    /// or when it does not hold together (`problem`).
    public static func read(path: String) throws(FileError) -> OracleFile {
        let data = try FileError.readData(path)
        let file: OracleFile
        do {
            file = try JSONDecoder().decode(OracleFile.self, from: data)
        } catch {
            throw .malformed(path: path, reason: FileError.describe(error))
        }
        if let problem = file.problem { throw .malformed(path: path, reason: problem) }
        return file
    }

    /// What keeps the file from describing one view and pixels inside it (nil: nothing): a
    /// center of other than two coordinates, a size that is not positive, a pixel outside the
    /// image. `Verifier.verify` refuses such a file too.
    public var problem: String? {
        if center.count != 2 { return "center has \(center.count) coordinates, not 2" }
        guard width > 0, height > 0 else { return "size \(width)x\(height) is not positive" }
        if let p = pixels.first(where: { !(0..<width).contains($0.x) || !(0..<height).contains($0.y) }) {
            return "pixel \(p.x),\(p.y) is outside the \(width)x\(height) image"
        }
        return nil
    }

    /// The oracle's location and image size as a location file (a center of other than two
    /// coordinates gives empty ones, which `LocationFile.location()` refuses).
    public var locationFile: LocationFile {
        let re = center.count == 2 ? center[0] : "", im = center.count == 2 ? center[1] : ""
        var f = LocationFile(
            location: Location(centerRe: re, centerIm: im, radius: radius, maxIterations: maxIterations))
        f.name = name
        f.family = family
        f.power = power
        f.juliaC = juliaC
        f.width = width
        f.height = height
        return f
    }
}

/// The outcome of checking a render against an oracle file.
public struct VerifyReport: Sendable {
    /// How the check ended.
    public enum Outcome: Sendable, Equatable {
        /// Every stable pixel's counts match, and its smooth value where it is compared.
        case passed
        /// Some stable pixel's counts or smooth value do not match.
        case failed
        /// Not rendered: the reason (a view that needs perturbation, say).
        case unsupported(String)
    }

    /// One sampled pixel: the expected data, the renderer's, and how they compare.
    public struct Row: Sendable {
        /// The expected data: the oracle's, or direct MPFR iteration's for `Verifier.check`.
        public var pixel: OracleFile.Pixel
        /// What the renderer gave for the pixel.
        public var got: PixelResult
        /// Whether `n2` and `nBig` match exactly (a nil count matching 0, no escape).
        public var countsMatch: Bool
        /// nil when the oracle has no smooth value or marks it unstable.
        public var smoothError: Double?
        /// Whether `smoothError` is within `Verifier.smoothTolerance` (true where it is nil).
        public var smoothMatches: Bool
    }

    /// The location's name.
    public var name: String
    /// Whether the check passed, failed, or could not render.
    public var outcome: Outcome
    /// The arithmetic path the render took (nil when not rendered).
    public var path: ArithmeticPath?
    /// The render's wall-clock seconds (0 when not rendered).
    public var seconds: Double
    /// One row a sampled pixel, in the order sampled (none when not rendered).
    public var rows: [Row]
    /// What perturbation did, for a render that took it.
    public var perturbation: PerturbationReport?
    /// The backend the kernels ran on (`RenderReport.backend`).
    public var backend = ComputeBackend.cpu
    /// The device they ran on: "cpu" or the GPU's (`RenderReport.device`).
    public var device = "cpu"
    /// The render's warnings.
    public var warnings: [String] = []

    /// Rows compared: those not marked unstable.
    public var checked: Int { rows.filter { !$0.pixel.unstable }.count }
    /// Compared rows whose counts do not match.
    public var countMismatches: Int { rows.filter { !$0.pixel.unstable && !$0.countsMatch }.count }
    /// Compared rows whose smooth value is outside `Verifier.smoothTolerance`.
    public var smoothMismatches: Int { rows.filter { !$0.pixel.unstable && !$0.smoothMatches }.count }
    /// The largest smooth error of any row (0 for none; infinity where the renderer gave NaN).
    public var maxSmoothError: Double { rows.compactMap(\.smoothError).max() ?? 0 }
}

/// Checks the renderer against oracle data: renders the whole location through the normal
/// render path and compares the sampled pixels (n2, nBig exactly on stable pixels; smooth
/// within `smoothTolerance` where the oracle does not mark it unstable).
public enum Verifier {
    /// The oracle's smooth values are good to ~1e-14; 1e-6 leaves room for the renderer's
    /// own rounding of z(nBig) in Double or double-double.
    public static let smoothTolerance = 1e-6

    /// `sampledOnly` renders just the sampled pixels (still through `Renderer.render`), for
    /// deep locations whose whole image would take minutes.
    public static func verify(
        _ oracle: OracleFile, threads: Int = 0, guardBits: Int = RenderSettings.defaultGuardBits,
        perturbation: PerturbationSettings = PerturbationSettings(), sampledOnly: Bool = false,
        backend: ComputeBackend = .cpu, gpuExact: Bool = false, control: RenderControl? = nil
    ) throws -> VerifyReport {
        if let problem = oracle.problem {
            throw LocationError.outOfRange(field: "oracle", text: oracle.name, limit: problem)
        }
        let location = try oracle.locationFile.location()
        var settings = RenderSettings(
            width: oracle.width, height: oracle.height, threads: threads, guardBits: guardBits,
            perturbation: perturbation)
        settings.backend = backend
        settings.gpuExact = gpuExact
        if sampledOnly { settings.onlyPixels = oracle.pixels.map { $0.y * oracle.width + $0.x } }
        let result: RenderResult
        do {
            result = try Renderer.render(location: location, settings: settings, control: control)
        } catch let error as RenderError where error != .cancelled {
            return VerifyReport(name: oracle.name, outcome: .unsupported("\(error)"), path: nil, seconds: 0, rows: [])
        }
        var rows: [VerifyReport.Row] = []
        for pixel in oracle.pixels {
            let got = result.field[pixel.x, pixel.y]
            let countsMatch = Int(got.n2) == (pixel.n2 ?? 0) && Int(got.nBig) == (pixel.nBig ?? 0)
            var smoothError: Double?
            if let expected = pixel.smooth, !pixel.smoothUnstable, !pixel.unstable {
                smoothError = got.smooth.isNaN ? .infinity : Swift.abs(got.smooth - expected)
            }
            rows.append(
                VerifyReport.Row(
                    pixel: pixel, got: got, countsMatch: countsMatch, smoothError: smoothError,
                    smoothMatches: (smoothError ?? 0) <= smoothTolerance))
        }
        var report = VerifyReport(
            name: oracle.name, outcome: .passed, path: result.report.path, seconds: result.report.seconds, rows: rows)
        report.perturbation = result.report.perturbation
        report.backend = result.report.backend
        report.device = result.report.device
        report.warnings = result.report.warnings
        if report.countMismatches > 0 || report.smoothMismatches > 0 { report.outcome = .failed }
        return report
    }
}

extension Verifier {
    /// Checks a view of your own against direct MPFR iteration, as `fathom verify` checks the
    /// oracle: renders only `pixels` ((x, y), top row y = 0) of `location` at `settings`
    /// through the normal render path (`RenderSettings.onlyPixels`), then iterates each
    /// directly in MPFR at two precisions, the bits below the pixel spacing plus 64 and twice
    /// that plus 64 (the oracle's rule). A pixel whose two MPFR results differ is marked
    /// unstable and not compared; counts must match exactly, smooth values within
    /// `smoothTolerance`. Each pixel costs its iterations in MPFR: pick few at extreme depth.
    public static func check(
        location: Location, settings: RenderSettings, pixels: [(x: Int, y: Int)], name: String = "view"
    ) throws -> VerifyReport {
        guard location.family.rootCount == 0 else {
            throw LocationError.outOfRange(
                field: "family", text: location.family.name, limit: "an escape-time family (MPFR checks escape counts)")
        }
        let viewport = try Viewport(location: location, width: settings.width, height: settings.height)
        for (x, y) in pixels where !(0..<settings.width).contains(x) || !(0..<settings.height).contains(y) {
            throw LocationError.outOfRange(
                field: "pixel", text: "\(x),\(y)", limit: "inside the \(settings.width)x\(settings.height) image")
        }
        var only = settings
        only.onlyPixels = pixels.map { $0.y * settings.width + $0.x }
        let result = try Renderer.render(location: location, settings: only)
        let bits = Int(-viewport.log2Spacing.rounded(.down)) + 64
        let fine = MPFREscape(precision: Precision(bits: 2 * bits + 64))
        let coarse = MPFREscape(precision: Precision(bits: bits))
        var rows: [VerifyReport.Row] = []
        for (x, y) in pixels {
            let want = fine.iterate(
                pixelX: x, pixelY: y, viewport: viewport, family: location.family,
                maxIterations: location.maxIterations)
            let other = coarse.iterate(
                pixelX: x, pixelY: y, viewport: viewport, family: location.family,
                maxIterations: location.maxIterations)
            let unstable = want.n2 != other.n2 || want.nBig != other.nBig
            let smoothUnstable = !want.smooth.isNaN && !(Swift.abs(want.smooth - other.smooth) <= 1e-6)
            let pixel = OracleFile.Pixel(
                x: x, y: y, n2: Int(want.n2), nBig: Int(want.nBig), logAbsZ: nil,
                smooth: want.smooth.isNaN ? nil : want.smooth, unstable: unstable, smoothUnstable: smoothUnstable)
            let got = result.field[x, y]
            var smoothError: Double?
            if let expected = pixel.smooth, !unstable, !smoothUnstable {
                smoothError = got.smooth.isNaN ? .infinity : Swift.abs(got.smooth - expected)
            }
            rows.append(
                VerifyReport.Row(
                    pixel: pixel, got: got, countsMatch: got.n2 == want.n2 && got.nBig == want.nBig,
                    smoothError: smoothError, smoothMatches: (smoothError ?? 0) <= smoothTolerance))
        }
        var report = VerifyReport(
            name: name, outcome: .passed, path: result.report.path, seconds: result.report.seconds, rows: rows)
        report.perturbation = result.report.perturbation
        report.backend = result.report.backend
        report.device = result.report.device
        report.warnings = result.report.warnings
        if report.countMismatches > 0 || report.smoothMismatches > 0 { report.outcome = .failed }
        return report
    }
}

extension Verifier {
    /// `verify` for async code: on a thread of its own, cancelled with the calling Task
    /// (`CancellationError`; see `RenderControl.run(with:_:)`).
    public static func verify(
        _ oracle: OracleFile, threads: Int = 0, guardBits: Int = RenderSettings.defaultGuardBits,
        perturbation: PerturbationSettings = PerturbationSettings(), sampledOnly: Bool = false,
        backend: ComputeBackend = .cpu, gpuExact: Bool = false, control: RenderControl? = nil
    ) async throws -> VerifyReport {
        try await RenderControl.run(with: control) { control in
            try verify(
                oracle, threads: threads, guardBits: guardBits, perturbation: perturbation, sampledOnly: sampledOnly,
                backend: backend, gpuExact: gpuExact, control: control)
        }
    }
}
