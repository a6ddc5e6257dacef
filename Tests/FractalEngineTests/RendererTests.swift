import FractalEngine
import FractalNumerics
import Testing

@Suite("Renderer")
struct RendererTests {
    let seahorse = Location(
        centerRe: "-0.746223962861", centerIm: "-0.0959468433527", radius: "3.725e-3", maxIterations: 1000)

    @Test("the same field for 1, 2, 3, 5 and 8 threads, any tile size and any tile order")
    func deterministic() throws {
        let base = try Renderer.render(location: seahorse, settings: RenderSettings(width: 64, height: 40, threads: 1))
        #expect(base.report.doubleDoublePixels > 0, "both lane kinds run")
        for (threads, tile, order) in [
            (2, 2048, TileOrder.ascending), (3, 7, .descending), (5, 333, .shuffled(seed: 1)),
            (8, 64, .shuffled(seed: 20_241_129)),
        ] {
            var settings = RenderSettings(width: 64, height: 40, threads: threads, tilePixels: tile)
            settings.tileOrder = order
            let other = try Renderer.render(location: seahorse, settings: settings)
            #expect(other.field == base.field, "\(threads) threads, tiles of \(tile), \(order)")
        }
    }

    @Test("the tile order is honoured: descending on one thread takes the short last tile first")
    func tileOrder() throws {
        final class Box: @unchecked Sendable { var fractions: [Double] = [] }
        for (order, first) in [(TileOrder.ascending, 1000.0 / 2560), (.descending, 560.0 / 2560)] {
            let box = Box()
            var settings = RenderSettings(width: 64, height: 40, threads: 1, tilePixels: 1000)
            settings.tileOrder = order
            // 2,560 pixels: tiles of 1,000, 1,000 and 560.
            _ = try Renderer.render(
                location: seahorse, settings: settings, control: RenderControl { box.fractions.append($0) })
            // Three tiles (each pass's fraction shows as `passShare` of it), then the end: 1.
            #expect(
                box.fractions.count == 4 && box.fractions.first == RenderControl.passShare * first
                    && box.fractions.last == 1,
                "\(order): \(box.fractions)")
        }
    }

    @Test("the path is the cheapest that carries the view's bits plus the guard bits (z^2 + c: checked Double first)")
    func pathChoice() throws {
        func path(_ radius: String, _ size: Int = 1000) throws -> ArithmeticPath {
            try Renderer.render(
                location: Location(centerRe: "-0.5", centerIm: "0", radius: radius, maxIterations: 1),
                settings: RenderSettings(width: size, height: size)
            ).report.path
        }
        #expect(try path("1.5") == .double)  // s = 2^-8.4: 10 bits + 40
        // Checked Double lanes while the spacing needs at most 33 bits, then double-double.
        #expect(try path("1e-3") == .double)  // 19 bits
        #expect(try path("1e-9") == .doubleDouble)  // 40 bits
        #expect(Renderer.automaticPath(bits: 59, guardBits: 40, family: .multibrot(power: 3)) == .doubleDouble)
        #expect(try path("1e-16") == .doubleDouble)  // s = 2^-62.1, scale 2: 64 bits + 40 = 104
        #expect(try path("1e-17") == .perturbation)  // 107 bits
        #expect(throws: RenderError.needsPerturbation(requiredBits: 107, availableBits: 106)) {
            try Renderer.render(
                location: Location(
                    family: .newton(NewtonPolynomial("z^3-1")!), centerRe: "0.5", centerIm: "0", radius: "1e-17",
                    maxIterations: 1),
                settings: RenderSettings(width: 1000, height: 1000))
        }
        #expect(Renderer.cheapestPath(forBits: 53) == .double)
        #expect(Renderer.cheapestPath(forBits: 54) == .doubleDouble)
        #expect(Renderer.cheapestPath(forBits: 107) == .perturbation)
    }

    /// fractalshades' shallow case: Double alone misses 1e-7 in smooth on 11,385 of its
    /// 800 x 800 pixels and gets 172 escapes wrong; the rounding check sends those (and
    /// more) to double-double, so the result equals double-double's.
    @Test("checked Double lanes give double-double's results where Double alone does not")
    func checkedDouble() throws {
        let loc = Location(centerRe: "-0.75", centerIm: "0.1", radius: "0.025", maxIterations: 2000)
        let checked = try Renderer.render(location: loc, settings: RenderSettings(width: 200, height: 200))
        #expect(checked.report.path == .double)
        #expect(checked.report.doubleDoublePixels > 0)
        let wide = try Renderer.render(
            location: loc, settings: RenderSettings(width: 200, height: 200, path: .doubleDouble))
        #expect(checked.field.n2 == wide.field.n2 && checked.field.nBig == wide.field.nBig)
        let worst = zip(checked.field.smooth, wide.field.smooth).map { $0.isNaN ? 0 : Swift.abs($0 - $1) }.max() ?? 0
        #expect(worst <= 1e-7, "smooth differs by \(worst)")
        // Julia (derivative with respect to z0) through the same check.
        let julia = Location(
            family: .julia(re: "-0.8", im: "0.156"), centerRe: "0", centerIm: "0", radius: "0.01", maxIterations: 3000)
        let j = try Renderer.render(location: julia, settings: RenderSettings(width: 64, height: 64))
        let jw = try Renderer.render(
            location: julia, settings: RenderSettings(width: 64, height: 64, path: .doubleDouble))
        #expect(j.report.path == .double)
        #expect(j.field.n2 == jw.field.n2 && j.field.nBig == jw.field.nBig)
        let jWorst = zip(j.field.smooth, jw.field.smooth).map { $0.isNaN ? 0 : Swift.abs($0 - $1) }.max() ?? 0
        #expect(jWorst <= 1e-7, "Julia smooth differs by \(jWorst)")
    }

    @Test("pixel centers follow the contract: re + (x + 0.5 - W/2) s, im + (H/2 - y - 0.5) s")
    func pixelMapping() throws {
        let v = try Viewport(
            location: Location(centerRe: "1", centerIm: "2", radius: "2", maxIterations: 1), width: 8, height: 4)
        // s = 2 * 2 / 4 = 1.
        #expect(v.point(x: 0, y: 0).re.doubleValue == 1 - 3.5)
        #expect(v.point(x: 0, y: 0).im.doubleValue == 2 + 1.5)
        #expect(v.point(x: 7, y: 3).re.doubleValue == 1 + 3.5)
        #expect(v.point(x: 7, y: 3).im.doubleValue == 2 - 1.5)
        let exact = v.exactPoint(x: 5, y: 1)
        #expect(exact.re.doubleValue == 2.5 && exact.im.doubleValue == 2.5)
        // A rotation of 90 degrees maps the right edge to the top.
        let r = try Viewport(
            location: Location(centerRe: "0", centerIm: "0", radius: "2", rotation: 90, maxIterations: 1), width: 4,
            height: 4)
        let p = r.point(x: 3, y: 1)  // unrotated offset (1.5, 0.5)
        #expect(Swift.abs(p.re.doubleValue + 0.5) < 1e-15 && Swift.abs(p.im.doubleValue - 1.5) < 1e-15)
    }

    @Test("progress reaches 1 and cancellation stops the render")
    func progressAndCancel() throws {
        final class Box: @unchecked Sendable { var last = 0.0; var calls = 0 }
        let box = Box()
        let control = RenderControl { f in
            box.last = f; box.calls += 1
        }
        _ = try Renderer.render(
            location: seahorse, settings: RenderSettings(width: 64, height: 64, tilePixels: 256), control: control)
        #expect(box.calls == 17, "16 tiles and the end")
        #expect(box.last == 1)
        let cancelled = RenderControl()
        cancelled.cancel()
        #expect(throws: RenderError.cancelled) {
            try Renderer.render(location: seahorse, settings: RenderSettings(width: 64, height: 64), control: cancelled)
        }
    }

    @Test("bad locations are rejected with the field named")
    func badInput() {
        #expect(throws: LocationError.badNumber(field: "center.re", text: "1.2.3")) {
            try Viewport(
                location: Location(centerRe: "1.2.3", centerIm: "0", radius: "1", maxIterations: 10), width: 10,
                height: 10)
        }
        #expect(throws: LocationError.nonPositiveRadius("0")) {
            try Viewport(
                location: Location(centerRe: "0", centerIm: "0", radius: "0", maxIterations: 10), width: 10, height: 10)
        }
        #expect(throws: LocationError.nonPositiveRadius("-1e-5")) {
            try Viewport(
                location: Location(centerRe: "0", centerIm: "0", radius: "-1e-5", maxIterations: 10), width: 10,
                height: 10)
        }
        #expect(throws: LocationError.badIterations(0)) {
            try Viewport(
                location: Location(centerRe: "0", centerIm: "0", radius: "1", maxIterations: 0), width: 10, height: 10)
        }
        #expect(throws: LocationError.badSize(width: 0, height: 10)) {
            try Viewport(
                location: Location(centerRe: "0", centerIm: "0", radius: "1", maxIterations: 1), width: 0, height: 10)
        }
        #expect(throws: LocationError.badPower(17)) {
            try Viewport(
                location: Location(
                    family: .multibrot(power: 17), centerRe: "0", centerIm: "0", radius: "1", maxIterations: 1),
                width: 1, height: 1)
        }
    }
}

/// A GPU backend as a provider plugs one in (`ComputeBackend`'s package init), whose device
/// fails in its first pass.
@Suite("Compute backends plugged into the engine")
struct PluggedBackendTests {
    struct DeviceBroke: DeviceFailure, CustomStringConvertible {
        var description: String { "test device: out of memory" }
    }
    final class FailingLauncher: KernelLauncher {
        let deviceName = "failing test device"
        var counters: LauncherCounters { LauncherCounters() }
        func run(
            _ launch: DeviceLaunch, threads: Int, control: RenderControl?, progressBase: Double,
            completed: (Range<Int>, UnsafeRawBufferPointer) throws -> Void
        ) throws -> Bool { throw DeviceBroke() }
    }
    static func backend(fallsBack: Bool) -> ComputeBackend {
        ComputeBackend(name: fallsBack ? "failing-auto" : "failing", fallsBackToCPU: fallsBack) { _, warning in
            FailingLauncher()
        }
    }
    let view = Location(
        centerRe: "-0.746223962861", centerIm: "-0.0959468433527", radius: "3.725e-3", maxIterations: 1000)

    @Test("a device that fails mid-render costs a CPU render and a warning where the backend falls back")
    func fallback() throws {
        let cpu = try Renderer.render(location: view, settings: RenderSettings(width: 48, height: 32))
        #expect(cpu.report.backend == .cpu && cpu.report.device == "cpu" && cpu.report.warnings.isEmpty)
        var settings = RenderSettings(width: 48, height: 32)
        settings.backend = Self.backend(fallsBack: true)
        let fallen = try Renderer.render(location: view, settings: settings)
        #expect(fallen.field == cpu.field)
        #expect(fallen.report.backend == .cpu && fallen.report.device == "cpu")
        #expect(fallen.report.warnings == ["test device: out of memory; rendered on the CPU"])
    }

    @Test("without a fallback, the device's error is the render's")
    func noFallback() throws {
        var settings = RenderSettings(width: 48, height: 32)
        settings.backend = Self.backend(fallsBack: false)
        #expect(throws: DeviceBroke.self) { try Renderer.render(location: view, settings: settings) }
    }
}
