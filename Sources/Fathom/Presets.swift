/// A named view that ships with Fathom.
public struct Preset: Sendable {
    /// The name `--preset` takes, e.g. `seahorse` (a family's default view has the family's name).
    public let name: String
    /// One line on what the view shows and where it comes from.
    public let summary: String
    /// The view, named `name`.
    public let location: Location
    /// The image size the view was framed for.
    public let width: Int
    /// The image height the view was framed for.
    public let height: Int

    init(
        name: String, summary: String, family: Family = .mandelbrot, centerRe: String, centerIm: String,
        radius: String, maxIterations: Int, width: Int = 1280, height: Int = 720
    ) {
        self.name = name
        self.summary = summary
        self.location = Location(
            name: name, family: family, centerRe: centerRe, centerIm: centerIm, radius: radius,
            maxIterations: maxIterations)
        self.width = width
        self.height = height
    }

    /// The arithmetic the renderer picks for this preset at its own size.
    public var path: ArithmeticPath {
        guard let viewport = try? Viewport(location: location, width: width, height: height) else {
            return .perturbation
        }
        return Renderer.automaticPath(
            bits: Renderer.requiredBits(viewport: viewport, guardBits: RenderSettings.defaultGuardBits),
            guardBits: RenderSettings.defaultGuardBits, family: location.family)
    }
}

/// The built-in views: each family's default, two classic valleys, and the published deep
/// locations of shared/locations (Presets+Published.swift).
public enum Presets {
    /// The view `make demo` renders: the rust-fractal-core e1000 benchmark (radius 2e-1000).
    public static let defaultName = "e1000"

    /// Each family's default view, and the Seahorse and Elephant valleys.
    public static let familyDefaults: [Preset] = [
        Preset(
            name: "mandelbrot", summary: "the whole Mandelbrot set, -2..1 on the real axis",
            centerRe: "-0.5", centerIm: "0", radius: "1.5", maxIterations: 1000),
        Preset(
            name: "multibrot", summary: "the Multibrot set z^3 + c",
            family: .multibrot(power: 3), centerRe: "0", centerIm: "0", radius: "1.5", maxIterations: 1000),
        Preset(
            name: "julia", summary: "the Julia set of z^2 - 0.8 + 0.156i",
            family: .julia(re: "-0.8", im: "0.156"), centerRe: "0", centerIm: "0", radius: "1.2", maxIterations: 1000),
        Preset(
            name: "newton", summary: "Newton's method for z^3 - 1, coloured by root and speed",
            family: .newton(NewtonPolynomial("z^3-1")!), centerRe: "0", centerIm: "0", radius: "1.5", maxIterations: 100
        ),
        Preset(
            name: "seahorse", summary: "Seahorse Valley (fractalshades' seahorse example)",
            centerRe: "-0.746223962861", centerIm: "-0.0959468433527", radius: "3.725e-3", maxIterations: 1000),
        Preset(
            name: "elephant", summary: "Elephant Valley, east of the main cardioid",
            centerRe: "0.2802", centerIm: "0.0080", radius: "0.012", maxIterations: 1000),
    ]

    /// Every preset: `familyDefaults`, then the published deep locations.
    public static var all: [Preset] { familyDefaults + published }

    /// The preset called `name` (any case), or nil.
    public static func named(_ name: String) -> Preset? {
        all.first { $0.name.lowercased() == name.lowercased() }
    }
}
