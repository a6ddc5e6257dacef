import Fathom
import Foundation
import Testing

/// Cancels a render from another thread at the first progress report that `when` accepts,
/// and records the reports that come after. The render's thread waits inside that report
/// until the cancel is done, so the cancel lands in the phase the report belongs to on every
/// run, without sleeps.
final class CancelProbe: @unchecked Sendable {
    private let lock = NSLock()
    private let when: @Sendable (Double) -> Bool
    private var armed = true
    private var atCancel: Double?
    private var after: [Double] = []
    private let reached = DispatchSemaphore(value: 0)
    private let cancelled = DispatchSemaphore(value: 0)

    private init(when: @escaping @Sendable (Double) -> Bool) { self.when = when }

    /// The progress reported when the cancel came (nil: the phase was never reached).
    var fractionAtCancel: Double? { lock.lock(); defer { lock.unlock() }; return atCancel }
    /// Progress reported after the cancel.
    var reportsAfterCancel: [Double] { lock.lock(); defer { lock.unlock() }; return after }

    struct Outcome {
        /// What the render threw (nil: it returned).
        var error: (any Error)?
        /// Seconds from the cancel to the render's end.
        var secondsAfterCancel: Double
        var probe: CancelProbe
    }

    /// Runs `render` on a thread of its own and cancels it from the calling thread when the
    /// phase `when` accepts is reached.
    static func run(
        when: @escaping @Sendable (Double) -> Bool, _ render: @escaping @Sendable (RenderControl) throws -> Void
    ) -> Outcome {
        let probe = CancelProbe(when: when)
        let control = RenderControl { probe.progress($0) }
        let finished = DispatchSemaphore(value: 0)
        let result = ResultBox()
        let thread = Thread {
            do { try render(control) } catch { result.error = error }
            result.end = DispatchTime.now().uptimeNanoseconds
            probe.reached.signal()  // the render ended (without reaching the phase, or after the cancel)
            finished.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        probe.reached.wait()
        let cancelTime = DispatchTime.now().uptimeNanoseconds
        control.cancel()
        probe.cancelled.signal()
        finished.wait()
        return Outcome(
            error: result.error, secondsAfterCancel: Double(result.end - min(result.end, cancelTime)) / 1e9,
            probe: probe)
    }

    private func progress(_ fraction: Double) {
        lock.lock()
        let fire = armed && when(fraction)
        if fire {
            armed = false
            atCancel = fraction
        } else if atCancel != nil {
            after.append(fraction)
        }
        lock.unlock()
        guard fire else { return }
        reached.signal()
        cancelled.wait()
    }

    private final class ResultBox: @unchecked Sendable {
        var error: (any Error)?
        var end: UInt64 = 0
    }
}

/// A render cancelled from another thread while it works stops with `RenderError.cancelled`
/// at the next poll: the reference orbit polls every step from 8192 bits, the tile
/// scheduler before each tile, a GPU pass before each launch.
@Suite("Cancellation during a render")
struct CancellationTests {
    /// The e55 view's center (FractalEngineTests' PerturbationTests).
    static let e55 = (
        re: "-1.29518908214777745701706417718568192670656646088488846921745350",
        im: "0.44093698267832013888090367835626261211321462743139620368266100"
    )

    @Test("cancelled while the reference orbit is computed (8,370 bits: polled every step), no step after")
    func duringReference() throws {
        // -log2(2e-2500 / 8) + 64 bits: above 8192, so the orbit reports and polls every step
        // (and, with 2 threads, multiplies on its partner thread).
        let loc = Location(centerRe: Self.e55.re, centerIm: Self.e55.im, radius: "1e-2500", maxIterations: 200_000)
        let viewport = try Viewport(location: loc, width: 8, height: 6)
        #expect(viewport.orbitPrecision.bits >= 8192)
        let outcome = CancelProbe.run(when: { $0 > 0 && $0 < 0.1 }) { control in
            _ = try Renderer.render(
                location: loc, settings: RenderSettings(width: 8, height: 6, threads: 2, path: .perturbation),
                control: control)
        }
        let at = try #require(outcome.probe.fractionAtCancel, "the reference phase was reached")
        #expect(at < 0.1)
        #expect(outcome.error as? RenderError == .cancelled, "\(String(describing: outcome.error))")
        // The next step's poll stops the orbit: no further step, and no pass, reports.
        #expect(outcome.probe.reportsAfterCancel.isEmpty, "\(outcome.probe.reportsAfterCancel.prefix(5))")
        #expect(outcome.secondsAfterCancel < 10)
    }

    @Test("cancelled during a perturbation pass: the tiles in flight finish, no other tile starts")
    func duringPerturbationPass() throws {
        let loc = Location(centerRe: Self.e55.re, centerIm: Self.e55.im, radius: "1e-30", maxIterations: 5000)
        // 128 x 64 pixels: 8 tiles of 1024 in the first pass, on 2 threads.
        let outcome = CancelProbe.run(when: { $0 > 0.1 && $0 < 1 }) { control in
            _ = try Renderer.render(
                location: loc, settings: RenderSettings(width: 128, height: 64, threads: 2, path: .perturbation),
                control: control)
        }
        #expect(outcome.probe.fractionAtCancel != nil)
        #expect(outcome.error as? RenderError == .cancelled, "\(String(describing: outcome.error))")
        // At most the other thread's tile reports after the cancel.
        #expect(outcome.probe.reportsAfterCancel.count <= 1, "\(outcome.probe.reportsAfterCancel)")
        #expect(!outcome.probe.reportsAfterCancel.contains(1))
        #expect(outcome.secondsAfterCancel < 10)
    }

    @Test("cancelled during a direct pass: no other tile starts")
    func duringDirectPass() throws {
        let loc = Location(
            centerRe: "-0.746223962861", centerIm: "-0.0959468433527", radius: "3.725e-3", maxIterations: 1000)
        // 16 tiles of 2048 pixels on 2 threads.
        let outcome = CancelProbe.run(when: { $0 > 0 && $0 < 1 }) { control in
            _ = try Renderer.render(
                location: loc, settings: RenderSettings(width: 256, height: 128, threads: 2, path: .double),
                control: control)
        }
        #expect(outcome.probe.fractionAtCancel != nil)
        #expect(outcome.error as? RenderError == .cancelled, "\(String(describing: outcome.error))")
        #expect(outcome.probe.reportsAfterCancel.count <= 1, "\(outcome.probe.reportsAfterCancel)")
        #expect(outcome.secondsAfterCancel < 10)
    }

    @Test("cancelled between the launches of a GPU pass (emulated backend): no further launch")
    func duringGPULaunches() throws {
        let loc = Location(centerRe: Self.e55.re, centerIm: Self.e55.im, radius: "1e-30", maxIterations: 5000)
        // 128 x 72 = 9,216 pixels: three launches of the emulation's 4,096 items.
        var settings = RenderSettings(width: 128, height: 72, threads: 2, path: .perturbation)
        settings.backend = .emulated
        let plain = try Renderer.render(location: loc, settings: settings)
        #expect(plain.report.gpuPasses > 0, "the first pass runs on the emulated GPU")
        let outcome = CancelProbe.run(when: { $0 > 0.1 && $0 < 1 }) { [settings] control in
            _ = try Renderer.render(location: loc, settings: settings, control: control)
        }
        let at = try #require(outcome.probe.fractionAtCancel, "a launch reported")
        // A pass's fraction shows as `RenderControl.passShare` of it (Documentation/Library.md).
        #expect(
            Swift.abs(at - RenderControl.passShare * (0.1 + 0.9 * 4096 / 9216)) < 1e-12, "after the first launch: \(at)"
        )
        #expect(outcome.error as? RenderError == .cancelled, "\(String(describing: outcome.error))")
        #expect(outcome.probe.reportsAfterCancel.isEmpty, "\(outcome.probe.reportsAfterCancel)")
        #expect(outcome.secondsAfterCancel < 10)
    }

    @Test("a progress closure may cancel the render it reports on")
    func cancelFromProgress() throws {
        // Weak: the control's closure holds the box.
        final class Box: @unchecked Sendable { weak var control: RenderControl? }
        let box = Box()
        let control = RenderControl { _ in box.control?.cancel() }
        box.control = control
        let loc = Location(
            centerRe: "-0.746223962861", centerIm: "-0.0959468433527", radius: "3.725e-3", maxIterations: 1000)
        #expect(throws: RenderError.cancelled) {
            try Renderer.render(
                location: loc, settings: RenderSettings(width: 64, height: 64, threads: 1, tilePixels: 256),
                control: control)
        }
    }
}
