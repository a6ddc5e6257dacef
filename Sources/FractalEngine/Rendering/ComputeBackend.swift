/// Where a render's per-pixel kernels run (Documentation/GPU.md). The engine runs on the CPU
/// or on the `KernelLauncher` it is given; FathomGPU's `Renderer.render(location:settings:control:)`
/// opens the backend named here.
public enum ComputeBackend: String, Sendable, CaseIterable {
    /// CUDA when a driver and a GPU are there, else the CPU (with a warning when a driver
    /// is there but fails).
    case auto
    /// The engine's CPU kernels.
    case cpu
    /// The CUDA kernels on GPU 0; an error when CUDA cannot be used.
    case cuda
    /// The CUDA kernels' source compiled for the CPU and run there: what the tests compare
    /// with the CPU kernels where there is no GPU. Slow; not for images.
    case emulated
}
