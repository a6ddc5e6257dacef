import Foundation

/// Progress reporting and cancellation for a render in flight. Thread-safe.
public final class RenderControl: @unchecked Sendable {
    /// Guards `cancelled` only: never held while `progress` runs, so the closure (or another
    /// thread while it runs) may call `cancel()` and `isCancelled`.
    private let lock = NSLock()
    private var cancelled = false
    /// One progress call at a time.
    private let progressLock = NSLock()
    private let progress: (@Sendable (Double) -> Void)?

    /// `progress` is called with the fraction of pixels done (0...1) after each tile, from
    /// the rendering threads, one call at a time; it may cancel the render.
    public init(progress: (@Sendable (Double) -> Void)? = nil) {
        self.progress = progress
    }

    /// Asks the render to stop; it throws `RenderError.cancelled` after the tiles in flight.
    public func cancel() {
        lock.lock()
        cancelled = true
        lock.unlock()
    }

    public var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }

    /// Progress of a reference orbit: reported as the first 10% of the render.
    func reportReference(_ fraction: Double) { report(0.1 * min(1, fraction)) }

    /// Progress of the render (0...1): for the passes and the backends that run them.
    public func report(_ fraction: Double) {
        guard let progress else { return }
        progressLock.lock()
        defer { progressLock.unlock() }
        progress(fraction)
    }
}

/// Why a render did not produce a field.
public enum RenderError: Error, Equatable, CustomStringConvertible {
    case cancelled
    /// The view needs more bits below the pixel spacing than direct iteration carries, and
    /// the family has no perturbation formula (Newton).
    case needsPerturbation(requiredBits: Int, availableBits: Int)
    /// The perturbation path was asked for a family that has no perturbation formula.
    case noPerturbationFormula(family: String)
    /// A reference orbit file was asked for, but the view renders on a direct path.
    case noReferenceOrbit(path: String)
    /// The reference orbit would outgrow the memory (`steps` steps of
    /// `RenderPlan.bytesPerReferenceStep`, more than `memory` bytes).
    case referenceTooLarge(steps: Int, memory: Int)
    /// A reference orbit's device broke its contract (a step near |Z| = 2 without its escape
    /// test): an internal error, reported rather than trusted.
    case deviceOrbit(String)

    public var description: String {
        switch self {
        case .cancelled:
            "render cancelled"
        case .noPerturbationFormula(let family):
            "path: the \(family) family has no perturbation formula: render it with path double or double-double"
        case .noReferenceOrbit(let path):
            "save-reference: this view renders on the \(path) path, which takes no reference orbit"
        case .referenceTooLarge(let steps, let memory):
            "the reference orbit would pass \(steps) steps, more than this machine's \(memory >> 20) MiB of memory holds with its BLA table: lower the iteration limit"
        case .deviceOrbit(let what):
            "the GPU's reference orbit: \(what)"
        case .needsPerturbation(let required, let available):
            "this view needs \(required) bits (pixel spacing plus guard bits) but direct double-double iteration carries \(available), and Newton fractals have no perturbation formula"
        }
    }
}
