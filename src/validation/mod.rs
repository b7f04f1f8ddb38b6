//! Measured against estimated: reads the JSON that `tools/mem_report.py` prints (chapter 7.1,
//! homework 1) and lines it up with a bill, component by component. Pure: the UI and tests use it.

use crate::ledger::json::Json;
use crate::ledger::msg::{Arg, Msg};
use crate::msg;

// The measured set is read by the native CLI and tests only (TOML is not in the web bundle).
#[cfg(not(target_arch = "wasm32"))]
pub mod accuracy;
pub mod trace;

use crate::ledger::bill::{Bill, ComponentId};

/// What `mem_report.py` measured, in bytes (peaks are `None` on the CPU).
#[derive(Clone, Debug, PartialEq)]
pub struct MemReport {
    pub device: String,
    /// The scenario the user said the run was, if given.
    pub query: Option<String>,
    pub weights: u64,
    pub gradients: u64,
    pub optimizer: u64,
    pub activations: u64,
    pub peak_allocated: Option<u64>,
    pub peak_reserved: Option<u64>,
}

/// Reads `mem_report.py`'s JSON; errors name the field.
pub fn parse_report(text: &str) -> Result<MemReport, Msg> {
    let v = Json::parse(text).map_err(|e| msg!(ReportNotJson, Arg::Text(e.to_string())))?;
    if v.get("tool").and_then(Json::as_str) != Some("vram-ledger/mem_report") {
        return Err(msg!(ReportTool));
    }
    if v.get("version").and_then(Json::as_u64) != Some(1) {
        return Err(msg!(ReportVersion));
    }
    let bytes = v.get("bytes").filter(|b| b.as_object().is_some()).ok_or(msg!(ReportBytes))?;
    let required = |key: &'static str| -> Result<u64, Msg> {
        bytes.get(key).and_then(Json::as_u64).ok_or_else(|| msg!(ReportField, Arg::Code(key)))
    };
    let optional = |key: &'static str| -> Result<Option<u64>, Msg> {
        match bytes.get(key) {
            None | Some(Json::Null) => Ok(None),
            Some(x) => x.as_u64().map(Some).ok_or_else(|| msg!(ReportFieldOrNull, Arg::Code(key))),
        }
    };
    Ok(MemReport {
        device: v.get("device").and_then(Json::as_str).unwrap_or("unknown").chars().take(80).collect(),
        query: v.get("query").and_then(Json::as_str).map(|q| q.chars().take(2000).collect()),
        weights: required("weights")?,
        gradients: required("gradients")?,
        optimizer: required("optimizer")?,
        activations: required("activations")?,
        peak_allocated: optional("peak_allocated")?,
        peak_reserved: optional("peak_reserved")?,
    })
}

/// One line of the comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// `weights`, `gradients`, `optimizer`, `activations`, `peak_allocated`, `peak_reserved`.
    pub what: &'static str,
    /// The ledger components that correspond to the measured figure.
    pub components: &'static [ComponentId],
    pub measured: u64,
    pub estimated: u64,
}

impl Row {
    /// (estimated − measured) / measured; `None` when nothing was measured.
    pub fn error(&self) -> Option<f64> {
        (self.measured > 0).then(|| (self.estimated as f64 - self.measured as f64) / self.measured as f64)
    }
}

/// The measured figures next to the ledger's. The script counts every parameter as a weight (LoRA
/// adapters included), fp32 master weights as optimizer state (they live there in mixed precision),
/// and the saved tensors of the loss (the fp32 log-probabilities) as activations: so the ledger's
/// activations row is its activations line plus the saved part of its logits line (the logits line
/// itself is the loss's peak, with the backward's transient copies that no hook sees).
pub fn compare(report: &MemReport, bill: &Bill) -> Vec<Row> {
    use ComponentId::*;
    const WEIGHTS: &[ComponentId] = &[Weights, AdapterWeights];
    const GRADIENTS: &[ComponentId] = &[Gradients];
    const OPTIMIZER: &[ComponentId] = &[Optimizer, MasterWeights];
    const ACTIVATIONS: &[ComponentId] = &[Activations, Logits];
    let sum = |ids: &[ComponentId]| ids.iter().map(|&id| bill.tensor_bytes(id)).fold(0, u64::saturating_add);
    let mut rows = vec![
        Row { what: "weights", components: WEIGHTS, measured: report.weights, estimated: sum(WEIGHTS) },
        Row { what: "gradients", components: GRADIENTS, measured: report.gradients, estimated: sum(GRADIENTS) },
        Row { what: "optimizer", components: OPTIMIZER, measured: report.optimizer, estimated: sum(OPTIMIZER) },
        Row {
            what: "activations",
            components: ACTIVATIONS,
            measured: report.activations,
            estimated: bill.component(Activations).saturating_add(bill.saved_logits_bytes),
        },
    ];
    if let Some(m) = report.peak_allocated {
        rows.push(Row { what: "peak_allocated", components: &[], measured: m, estimated: bill.allocated_bytes() });
    }
    if let Some(m) = report.peak_reserved {
        rows.push(Row { what: "peak_reserved", components: &[], measured: m, estimated: bill.reserved_bytes() });
    }
    rows
}
