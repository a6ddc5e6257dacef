import Foundation

extension RenderControl {
    /// Runs `work` on a thread of its own (a render would block a thread of Swift's cooperative
    /// pool for its whole length) and waits for it without blocking. When the calling Task is
    /// cancelled, `control` (or a control made for the run) is cancelled: the work stops after
    /// its tiles in flight, and the call throws `CancellationError`, as it does when the Task
    /// was cancelled before the work began or the control was cancelled (by its progress
    /// callback, say). Other errors are the work's own.
    ///
    /// The async entry points (`Renderer.render`, `ImageRender.render`, `FrameSequence.render`,
    /// `Verifier.verify`) are this around their blocking forms.
    public static func run<T: Sendable>(
        with control: RenderControl?, _ work: @escaping @Sendable (RenderControl) throws -> T
    ) async throws -> T {
        let control = control ?? RenderControl()
        try Task.checkCancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let thread = Thread {
                    do {
                        let value = try work(control)
                        continuation.resume(returning: value)
                    } catch RenderError.cancelled {
                        continuation.resume(throwing: CancellationError())
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
                // The stack of a main thread: MPFR and deep recursion in the tile code want it.
                thread.stackSize = 8 << 20
                thread.start()
            }
        } onCancel: {
            control.cancel()
        }
    }
}
