/// Where a render's per-pixel kernels run (Documentation/GPU.md). The engine itself knows the
/// CPU (`cpu`); a GPU backend is plugged in by the module that provides it: FathomGPU adds
/// `auto`, `cuda` and `emulated`, so they exist only where FathomGPU is imported (the umbrella
/// `Fathom` does), and `import FractalEngine` alone never compiles or loads the CUDA loader.
/// `Renderer.render(location:settings:control:)` opens the backend `RenderSettings.backend`
/// names, once per process.
public struct ComputeBackend: Sendable, Hashable, CustomStringConvertible {
    /// The name the command line, location files and reports use: `cpu`, `auto`, `cuda`,
    /// `emulated`.
    public let name: String
    /// Whether a device that cannot be opened, or that fails mid-render, costs a CPU render
    /// and a warning (`auto`) instead of an error.
    public let fallsBackToCPU: Bool
    /// Opens the backend (once per process: the provider caches it): the launcher its passes
    /// run on, nil for the CPU. May set `warning` (a device there but unusable, under `auto`).
    package let open: @Sendable (_ exact: Bool, _ warning: inout String?) throws -> (any KernelLauncher)?

    /// A backend named `name` that `open` opens: for the module that provides one.
    package init(
        name: String, fallsBackToCPU: Bool,
        open: @escaping @Sendable (_ exact: Bool, _ warning: inout String?) throws -> (any KernelLauncher)?
    ) {
        self.name = name
        self.fallsBackToCPU = fallsBackToCPU
        self.open = open
    }

    /// The engine's CPU kernels.
    public static let cpu = ComputeBackend(name: "cpu", fallsBackToCPU: false) { _, _ in nil }

    /// Opens the backend now (for a GPU: the driver, the device and the kernels, compiled or read
    /// from the disk cache) instead of in the first render, and returns the device it runs on
    /// ("cpu" for the CPU's kernel; under `auto` without a usable GPU, the CPU's lane form where
    /// it runs, e.g. "CPU lanes, 8 wide", else "cpu"). Throws what a render would.
    public func prepare(exact: Bool = false) throws -> String {
        var warning: String?
        return try open(exact, &warning)?.deviceName ?? ComputeBackend.cpu.name
    }

    /// The backend's name.
    public var description: String { name }
    /// Whether two backends are the same: the same name (a provider makes one of each).
    public static func == (a: ComputeBackend, b: ComputeBackend) -> Bool { a.name == b.name }
    /// Hashes the name, as `==` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// An error of a device a backend opened (FathomGPU's `GPUError`): under a backend that
/// `fallsBackToCPU`, the render is done again on the CPU.
package protocol DeviceFailure: Error {}
