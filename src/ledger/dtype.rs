//! The numeric type a tensor is held in, and its size.

/// The dtype of a group of tensors (weights, adapters, gradients, optimizer states, activations).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    Fp32,
    Bf16,
}

impl Dtype {
    /// Bytes per element.
    pub fn bytes(self) -> f64 {
        match self {
            Dtype::Fp32 => 4.0,
            Dtype::Bf16 => 2.0,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Dtype::Fp32 => "fp32",
            Dtype::Bf16 => "bf16",
        }
    }

    /// Whether this is a 16-bit type, which autocast and the loss upcast to fp32.
    pub fn is_half(self) -> bool {
        self == Dtype::Bf16
    }
}
