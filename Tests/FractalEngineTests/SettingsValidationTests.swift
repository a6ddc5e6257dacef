import ArbitraryPrecision
import FractalEngine
import FractalNumerics
import Testing

/// Settings outside what the engine takes are refused with the setting's name before any work;
/// before this check some trapped, and `onlyPixels` outside the image wrote past the field.
@Suite("Render settings are checked before any work")
struct SettingsValidationTests {
    let seahorse = Location(
        centerRe: "-0.746223962861", centerIm: "-0.0959468433527", radius: "3.725e-3", maxIterations: 500)

    static func refusedName(_ settings: RenderSettings, _ location: Location) -> String? {
        do {
            _ = try Renderer.render(location: location, settings: settings)
            return nil
        } catch let RenderError.invalidSetting(name, _) {
            return name
        } catch {
            return "\(error)"
        }
    }

    @Test("each setting out of range: RenderError.invalidSetting naming it, from render and plan")
    func outOfRange() throws {
        // A deep view too, so that the perturbation settings are read.
        let deep = Location(
            centerRe: "-1.7499972615289978918", centerIm: "0.000000014159269208", radius: "1e-16", maxIterations: 2000)
        var cases: [(String, (inout RenderSettings) -> Void)] = [
            ("threads", { $0.threads = -1 }), ("threads", { $0.threads = 1 << 40 }),
            ("guardBits", { $0.guardBits = -3 }), ("guardBits", { $0.guardBits = .max }),
            ("tilePixels", { $0.tilePixels = 0 }), ("tilePixels", { $0.tilePixels = .max }),
            ("perturbation.extraBits", { $0.perturbation.extraBits = -200 }),
            ("perturbation.extraBits", { $0.perturbation.extraBits = .max }),
            ("perturbation.streamedStage", { $0.perturbation.streamedStage = -1 }),
            ("onlyPixels", { $0.onlyPixels = [0, -1] }), ("onlyPixels", { $0.onlyPixels = [16 * 9] }),
            ("onlyPixels", { $0.onlyPixels = [.max] }),
        ]
        cases.append(("threads", { $0.threads = .min }))
        for (name, change) in cases {
            var settings = RenderSettings(width: 16, height: 9)
            change(&settings)
            for location in [seahorse, deep] {
                #expect(Self.refusedName(settings, location) == name, "\(name) on \(location.radius)")
                #expect(throws: RenderError.self) { _ = try Renderer.plan(location: location, settings: settings) }
            }
        }
        // The edges of each range render.
        var edges = RenderSettings(width: 16, height: 9, threads: 1024, guardBits: 64, tilePixels: 1)
        edges.onlyPixels = [0, 16 * 9 - 1]
        edges.perturbation.streamedStage = 0
        _ = try Renderer.render(location: deep, settings: edges)
        edges.guardBits = 0
        edges.threads = 0
        _ = try Renderer.render(location: seahorse, settings: edges)
    }

    @Test("minibrot searches with a radius of zero or nonsense counts: nil, never a trap")
    func finderInputs() throws {
        let c = try BigComplex(parsingRe: "-0.746223962861", im: "-0.0959468433527", precision: Precision(bits: 128))
        #expect(MinibrotFinder.find(near: c, radius: FloatExp(0)) == nil)
        #expect(MinibrotFinder.find(near: c, radius: FloatExp(Double.nan)) == nil)
        #expect(MinibrotFinder.find(near: c, radius: FloatExp(-1e-3)) == nil)
        #expect(MinibrotFinder.find(near: c, radius: FloatExp(3.725e-3), attempts: -1) == nil)
        #expect(MinibrotFinder.nucleus(from: c, period: -1, precision: Precision(bits: 128)) == nil)
        // A period below 1 takes no step (a negative one made an empty range trap).
        #expect(MinibrotFinder.residual(c, period: -3).0.isZero)
        #expect(MinibrotFinder.size(nucleus: c, period: -3).re.isFinite)
        // Digit counts below 0 or far past the precision: no trap, no runaway allocation.
        #expect(c.re.decimalString(significantDigits: -1) == c.re.decimalString())
        #expect(c.re.decimalString(significantDigits: Int.max).count < 2000)
        if case .found = MinibrotFinder.minibrot(period: 0, near: c, radius: FloatExp(1e-3)) {
            Issue.record("period 0 found a minibrot")
        }
        #expect(MinibrotFinder.descend(from: c, radius: FloatExp(3.725e-3), to: FloatExp(1e-6), fraction: .nan) == nil)
        // The same search with sound inputs finds the seahorse's minibrot.
        #expect(MinibrotFinder.find(near: c, radius: FloatExp(3.725e-3)) != nil)
    }
}
