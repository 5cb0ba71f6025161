//! A thin layer over the CUDA driver API (through cudarc's `sys` bindings): context,
//! device memory, modules, launches, events and tensor maps. Every call is checked.
//!
//! Nothing here may be called before [`crate::driver_present`] returned true: cudarc
//! panics when libcuda cannot be loaded.

use crate::CollectError;
use cudarc::driver::{CudaContext, sys};
use std::ffi::{CStr, CString, c_void};
use std::sync::Arc;

pub(crate) type Result<T> = std::result::Result<T, CollectError>;

pub(crate) fn ck(r: sys::CUresult, what: &str) -> Result<()> {
    if r == sys::CUresult::CUDA_SUCCESS {
        return Ok(());
    }
    let mut p: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: cuGetErrorString writes a pointer to a static string or leaves it null.
    let text = unsafe {
        if sys::cuGetErrorString(r, &mut p) == sys::CUresult::CUDA_SUCCESS && !p.is_null() {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        } else {
            String::new()
        }
    };
    Err(CollectError::Driver(format!("{what}: {r:?} ({text})")))
}

/// Pointer to a kernel argument, for `cuLaunchKernel`'s parameter array.
pub(crate) fn arg<T>(v: &T) -> *mut c_void {
    v as *const T as *mut c_void
}

pub(crate) struct Gpu {
    _ctx: Arc<CudaContext>,
    pub dev: sys::CUdevice,
}

impl Gpu {
    /// Device 0's primary context, made current on this thread.
    pub fn open() -> Result<Self> {
        let ctx =
            CudaContext::new(0).map_err(|e| CollectError::Driver(format!("context: {e:?}")))?;
        let dev = ctx.cu_device();
        Ok(Gpu { _ctx: ctx, dev })
    }

    pub fn attr(&self, a: sys::CUdevice_attribute) -> Result<i32> {
        let mut v = 0i32;
        // SAFETY: plain query into a local.
        ck(
            unsafe { sys::cuDeviceGetAttribute(&mut v, a, self.dev) },
            "cuDeviceGetAttribute",
        )?;
        Ok(v)
    }

    pub fn name(&self) -> Result<String> {
        let mut buf = [0 as std::ffi::c_char; 256];
        // SAFETY: the buffer is 256 bytes and the length passed says so.
        ck(
            unsafe { sys::cuDeviceGetName(buf.as_mut_ptr(), 256, self.dev) },
            "cuDeviceGetName",
        )?;
        // SAFETY: the driver writes a NUL-terminated string.
        Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned())
    }

    pub fn total_mem(&self) -> Result<u64> {
        let mut v = 0usize;
        // SAFETY: plain query into a local.
        ck(
            unsafe { sys::cuDeviceTotalMem_v2(&mut v, self.dev) },
            "cuDeviceTotalMem",
        )?;
        Ok(v as u64)
    }

    pub fn alloc(&self, bytes: usize) -> Result<DevBuf> {
        let mut ptr = 0u64;
        // SAFETY: allocation into a local; freed in DevBuf's Drop.
        ck(
            unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes.max(16)) },
            "cuMemAlloc",
        )?;
        let b = DevBuf { ptr, bytes };
        b.fill_u32(0)?;
        Ok(b)
    }

    pub fn sync(&self) -> Result<()> {
        // SAFETY: no arguments.
        ck(unsafe { sys::cuCtxSynchronize() }, "cuCtxSynchronize")
    }

    pub fn load(&self, image: &[u8]) -> Result<Module> {
        let mut m: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: `image` is a cubin or NUL-terminated PTX that outlives the call.
        ck(
            unsafe { sys::cuModuleLoadData(&mut m, image.as_ptr() as *const c_void) },
            "cuModuleLoadData",
        )?;
        Ok(Module { m })
    }
}

/// Device memory, freed on drop.
pub(crate) struct DevBuf {
    pub ptr: u64,
    pub bytes: usize,
}

impl DevBuf {
    pub fn upload<T: Copy>(&self, data: &[T]) -> Result<()> {
        let n = std::mem::size_of_val(data);
        assert!(n <= self.bytes, "upload larger than the buffer");
        // SAFETY: the source slice holds n bytes; the buffer holds at least n.
        ck(
            unsafe { sys::cuMemcpyHtoD_v2(self.ptr, data.as_ptr() as *const c_void, n) },
            "cuMemcpyHtoD",
        )
    }

    pub fn download<T: Copy + Default>(&self, count: usize) -> Result<Vec<T>> {
        let mut v = vec![T::default(); count];
        let n = count * std::mem::size_of::<T>();
        assert!(n <= self.bytes, "download larger than the buffer");
        // SAFETY: the destination holds n bytes; the buffer holds at least n.
        ck(
            unsafe { sys::cuMemcpyDtoH_v2(v.as_mut_ptr() as *mut c_void, self.ptr, n) },
            "cuMemcpyDtoH",
        )?;
        Ok(v)
    }

    pub fn fill_u32(&self, value: u32) -> Result<()> {
        // SAFETY: writes bytes/4 words inside the allocation.
        ck(
            unsafe { sys::cuMemsetD32_v2(self.ptr, value, self.bytes / 4) },
            "cuMemsetD32",
        )
    }
}

impl Drop for DevBuf {
    fn drop(&mut self) {
        // SAFETY: ptr came from cuMemAlloc and is freed once.
        unsafe {
            sys::cuMemFree_v2(self.ptr);
        }
    }
}

pub(crate) struct Module {
    m: sys::CUmodule,
}

impl Module {
    pub fn func(&self, name: &str) -> Result<Func> {
        let c = CString::new(name).expect("kernel name without NUL");
        let mut f: sys::CUfunction = std::ptr::null_mut();
        // SAFETY: the module is loaded; the name is NUL-terminated.
        ck(
            unsafe { sys::cuModuleGetFunction(&mut f, self.m, c.as_ptr()) },
            &format!("cuModuleGetFunction {name}"),
        )?;
        Ok(Func {
            f,
            name: name.to_string(),
        })
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: the module was loaded once and is unloaded once.
        unsafe {
            sys::cuModuleUnload(self.m);
        }
    }
}

/// A kernel of a loaded module (valid while the module lives).
pub(crate) struct Func {
    f: sys::CUfunction,
    pub name: String,
}

impl Func {
    pub fn attr(&self, a: sys::CUfunction_attribute) -> Result<i32> {
        let mut v = 0i32;
        // SAFETY: plain query into a local.
        ck(
            unsafe { sys::cuFuncGetAttribute(&mut v, a, self.f) },
            "cuFuncGetAttribute",
        )?;
        Ok(v)
    }

    pub fn set_attr(&self, a: sys::CUfunction_attribute, v: i32) -> Result<()> {
        // SAFETY: sets an attribute of a valid function.
        ck(
            unsafe { sys::cuFuncSetAttribute(self.f, a, v) },
            &format!("cuFuncSetAttribute {}", self.name),
        )
    }

    /// How many blocks of `block` threads fit on one SM (cuOccupancyMaxActiveBlocksPerMultiprocessor).
    pub fn max_active_blocks(&self, block: u32, smem: usize) -> Result<u32> {
        let mut n = 0i32;
        // SAFETY: plain query into a local.
        ck(
            unsafe {
                sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, self.f, block as i32, smem)
            },
            "cuOccupancyMaxActiveBlocksPerMultiprocessor",
        )?;
        Ok(n.max(0) as u32)
    }

    /// Allows `bytes` of dynamic shared memory.
    pub fn allow_smem(&self, bytes: u32) -> Result<()> {
        self.set_attr(
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes as i32,
        )
    }

    /// Launches on the default stream; does not wait.
    pub fn launch(&self, grid: u32, block: u32, smem: u32, args: &[*mut c_void]) -> Result<()> {
        let mut a: Vec<*mut c_void> = args.to_vec();
        // SAFETY: each entry points at a live value of the kernel's parameter type; the
        // driver copies them during the call.
        ck(
            unsafe {
                sys::cuLaunchKernel(
                    self.f,
                    grid,
                    1,
                    1,
                    block,
                    1,
                    1,
                    smem,
                    std::ptr::null_mut(),
                    a.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            },
            &format!("launch {}", self.name),
        )
    }
}

/// A timing event on the default stream.
pub(crate) struct Event(sys::CUevent);

impl Event {
    pub fn new() -> Result<Self> {
        let mut e: sys::CUevent = std::ptr::null_mut();
        // SAFETY: creates an event with timing enabled (flags 0 = CU_EVENT_DEFAULT).
        ck(unsafe { sys::cuEventCreate(&mut e, 0) }, "cuEventCreate")?;
        Ok(Event(e))
    }
    pub fn record(&self) -> Result<()> {
        // SAFETY: valid event, default stream.
        ck(
            unsafe { sys::cuEventRecord(self.0, std::ptr::null_mut()) },
            "cuEventRecord",
        )
    }
    /// Milliseconds from `self` to `end` (both recorded and complete).
    pub fn elapsed_ms(&self, end: &Event) -> Result<f64> {
        // SAFETY: both events are valid.
        ck(
            unsafe { sys::cuEventSynchronize(end.0) },
            "cuEventSynchronize",
        )?;
        let mut ms = 0f32;
        // SAFETY: valid events, output into a local.
        ck(
            unsafe { sys::cuEventElapsedTime_v2(&mut ms, self.0, end.0) },
            "cuEventElapsedTime",
        )?;
        Ok(f64::from(ms))
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: destroyed once.
        unsafe {
            sys::cuEventDestroy_v2(self.0);
        }
    }
}

/// A 2D tiled tensor map of u32 elements over `base`: `width` x `height` elements,
/// rows `width*4` bytes apart, box `box_w` x `box_h`, no swizzle.
pub(crate) fn tensor_map_2d_u32(
    base: u64,
    width: u64,
    height: u64,
    box_w: u32,
    box_h: u32,
) -> Result<sys::CUtensorMap> {
    // SAFETY: CUtensorMap is plain data that the driver fills in.
    let mut tm: sys::CUtensorMap = unsafe { std::mem::zeroed() };
    let dims = [width, height];
    let strides = [width * 4];
    let boxd = [box_w, box_h];
    let estr = [1u32, 1u32];
    // SAFETY: arrays of the documented lengths (rank 2: rank-1 strides).
    ck(
        unsafe {
            sys::cuTensorMapEncodeTiled(
                &mut tm,
                sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT32,
                2,
                base as *mut c_void,
                dims.as_ptr(),
                strides.as_ptr(),
                boxd.as_ptr(),
                estr.as_ptr(),
                sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
                sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_NONE,
                sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            )
        },
        "cuTensorMapEncodeTiled",
    )?;
    Ok(tm)
}

/// A 2D tiled tensor map of bf16 elements over `base`, K-major (`width` elements a row,
/// `height` rows), box `box_w` x `box_h`, 128-byte swizzle: the layout wgmma's K-major
/// SW128 descriptors read (`box_w` x 2 bytes must be 128).
pub(crate) fn tensor_map_2d_bf16_sw128(
    base: u64,
    width: u64,
    height: u64,
    box_w: u32,
    box_h: u32,
) -> Result<sys::CUtensorMap> {
    // SAFETY: CUtensorMap is plain data that the driver fills in.
    let mut tm: sys::CUtensorMap = unsafe { std::mem::zeroed() };
    let dims = [width, height];
    let strides = [width * 2];
    let boxd = [box_w, box_h];
    let estr = [1u32, 1u32];
    // SAFETY: arrays of the documented lengths (rank 2: rank-1 strides).
    ck(
        unsafe {
            sys::cuTensorMapEncodeTiled(
                &mut tm,
                sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
                2,
                base as *mut c_void,
                dims.as_ptr(),
                strides.as_ptr(),
                boxd.as_ptr(),
                estr.as_ptr(),
                sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
                sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            )
        },
        "cuTensorMapEncodeTiled (bf16, 128B swizzle)",
    )?;
    Ok(tm)
}

/// `cuDriverGetVersion`.
pub(crate) fn driver_version() -> Result<i32> {
    let mut v = 0i32;
    // SAFETY: plain query into a local; works before cuInit.
    ck(
        unsafe { sys::cuDriverGetVersion(&mut v) },
        "cuDriverGetVersion",
    )?;
    Ok(v)
}
