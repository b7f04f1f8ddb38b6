//! The step's memory over its phases: what is live at each moment, stacked by component as in the
//! bars (areas between the moments), against the card and the 80 % line, the peak marked with its
//! phase. Each moment is a target whose title lists what is live then.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{css_color, font, house_style, px, rgb, Chart, Shape, Target, AXIS, CAPACITY, MARGIN};
use crate::ledger::bill::{ComponentId, MARGIN as MARGIN_SHARE};
use crate::ledger::phases::Phase;
use crate::ledger::units::fixed;
use crate::markup::Markup;

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// Texts the timeline needs, in the reader's language.
#[derive(Clone, Debug)]
pub struct TimelineText {
    pub axis: String,
    pub capacity: String,
    pub margin_line: String,
    /// Each phase's label under the axis, in order.
    pub phases: Vec<String>,
    /// The peak's mark: "peak".
    pub peak: String,
    /// The name of a component, and the word for the device total (for the hover titles).
    pub component: fn(ComponentId) -> String,
    pub total: String,
}

/// A user's trace laid on the phases' axis: (position on it, 0 = the first phase; bytes allocated).
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    pub points: Vec<(f64, u64)>,
    /// Its legend: "measured (your trace)".
    pub label: String,
}

/// The measured curve's colour: the page's text colour in either scheme (CSS maps it).
const MEASURED: RGBColor = RGBColor(0x11, 0x18, 0x27);

/// `phases` in time order against a GPU of `gpu_bytes`, the `peak`-th marked, a user's `measured`
/// curve over them when there is one; `width` × `height`.
pub fn timeline(
    phases: &[Phase],
    peak: Option<usize>,
    gpu_bytes: u64,
    measured: Option<&Measured>,
    text: &TimelineText,
    (width, height): (u32, u32),
) -> Chart {
    let mut targets = Vec::new();
    match Markup::svg((width, height), |root| draw(root, phases, peak, gpu_bytes, measured, text, &mut targets)) {
        Ok(svg) => Chart { svg, width, height, targets },
        Err(_) => Chart::blank(width, height),
    }
}

/// The stacked tops of each component at each phase (GiB), in bill order, from the bottom.
fn stacks(phases: &[Phase]) -> Vec<(ComponentId, Vec<(f64, f64)>)> {
    let mut base = vec![0.0; phases.len()];
    ComponentId::ALL
        .iter()
        .filter(|id| phases.iter().any(|p| p.bytes(**id) > 0))
        .map(|&id| {
            let band = phases
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let bottom = base[i];
                    base[i] += p.bytes(id) as f64 / GIB;
                    (bottom, base[i])
                })
                .collect();
            (id, band)
        })
        .collect()
}

fn title(p: &Phase, label: &str, text: &TimelineText) -> String {
    let mut live: Vec<String> = p
        .components
        .iter()
        .filter(|(_, b)| *b > 0)
        .map(|(id, b)| format!("{} {} GiB", (text.component)(*id), fixed(*b as f64 / GIB, 2)))
        .collect();
    live.push(format!("{} {} GiB", text.total, fixed(p.total(crate::ledger::bill::TotalKind::Device) as f64 / GIB, 2)));
    format!("{label}: {}", live.join(", "))
}

fn draw(
    root: &DrawingArea<SVGBackend, Shift>,
    phases: &[Phase],
    peak: Option<usize>,
    gpu_bytes: u64,
    measured: Option<&Measured>,
    text: &TimelineText,
    targets: &mut Vec<Target>,
) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    let capacity = gpu_bytes as f64 / GIB;
    let measured_top = measured.map_or(0.0, |m| m.points.iter().map(|p| p.1 as f64 / GIB).fold(0.0, f64::max));
    let tallest = (phases.iter())
        .map(|p| p.total(crate::ledger::bill::TotalKind::Device) as f64 / GIB)
        .fold(measured_top, f64::max);
    let top = Some(tallest.max(capacity) * 1.08).filter(|t| t.is_finite() && *t > 0.0).unwrap_or(1.0);
    let last = phases.len().saturating_sub(1).max(1) as f64;
    let mut chart = ChartBuilder::on(root)
        .margin_top(8)
        .margin_right(16)
        .margin_left(8)
        .x_label_area_size(28)
        .y_label_area_size(52)
        .build_cartesian_2d(-0.05..last + 0.05, 0.0..top)?;
    house_style(
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_labels(6)
            .y_label_formatter(&|v| fixed(*v, 1))
            .y_desc(text.axis.as_str()),
    )
    .draw()?;
    for (id, band) in stacks(phases) {
        let upper = band.iter().enumerate().map(|(i, (_, t))| (i as f64, *t));
        let lower = band.iter().enumerate().rev().map(|(i, (b, _))| (i as f64, *b));
        chart.draw_series(std::iter::once(Polygon::new(
            upper.chain(lower).collect::<Vec<_>>(),
            rgb(css_color(id)).filled(),
        )))?;
    }
    for (level, label, color) in [
        (capacity, text.capacity.as_str(), CAPACITY),
        (capacity * (1.0 - MARGIN_SHARE), text.margin_line.as_str(), MARGIN),
    ] {
        let level = level.min(top);
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(-0.05, level), (last + 0.05, level)],
            color.stroke_width(2),
        )))?;
        let style = font(12.0).color(&color).pos(Pos::new(HPos::Left, VPos::Bottom));
        chart.draw_series(std::iter::once(
            EmptyElement::at((0.0, level)) + Text::new(label.to_string(), (4, -4), style),
        ))?;
    }
    if let Some(m) = measured {
        draw_measured(&mut chart, m, last)?;
    }
    let label_style = font(11.0).color(&AXIS).pos(Pos::new(HPos::Center, VPos::Top));
    for (i, p) in phases.iter().enumerate() {
        let label = text.phases.get(i).cloned().unwrap_or_default();
        let x = i as f64;
        chart.draw_series(std::iter::once(
            EmptyElement::at((x, 0.0)) + Text::new(label.clone(), (0, 8), label_style.clone()),
        ))?;
        let device = p.total(crate::ledger::bill::TotalKind::Device) as f64 / GIB;
        if peak == Some(i) {
            chart.draw_series(std::iter::once(PathElement::new(vec![(x, 0.0), (x, device)], AXIS.stroke_width(2))))?;
            let style = font(12.0).color(&AXIS).pos(Pos::new(HPos::Center, VPos::Bottom));
            chart.draw_series(std::iter::once(
                EmptyElement::at((x, device)) + Text::new(text.peak.clone(), (0, -4), style),
            ))?;
        }
        let ((left, bottom), (right, upper)) = (
            px(chart.backend_coord(&((x - 0.5).max(-0.05), 0.0))),
            px(chart.backend_coord(&((x + 0.5).min(last + 0.05), top))),
        );
        targets.push(Target {
            shape: Shape::Rect { x: left, y: upper, w: right - left, h: bottom - upper },
            class: "phase",
            component: None,
            bar: Some(i),
            title: title(p, &label, text),
        });
    }
    Ok(())
}

type Plot<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// The measured curve as a line over the areas, its legend at its end.
fn draw_measured(chart: &mut Plot, m: &Measured, last: f64) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    let points: Vec<(f64, f64)> =
        m.points.iter().map(|&(x, b)| (crate::ledger::units::within(x, -0.05, last + 0.05), b as f64 / GIB)).collect();
    chart.draw_series(std::iter::once(PathElement::new(points.clone(), MEASURED.stroke_width(2))))?;
    if let Some(&(x, y)) = points.iter().max_by(|a, b| a.1.total_cmp(&b.1)) {
        let style = font(12.0)
            .color(&MEASURED)
            .pos(Pos::new(if x > last / 2.0 { HPos::Right } else { HPos::Left }, VPos::Bottom));
        chart.draw_series(std::iter::once(EmptyElement::at((x, y)) + Text::new(m.label.clone(), (0, -18), style)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{stacks, timeline, Measured, TimelineText};
    use crate::ledger::bill::ComponentId;
    use crate::ledger::phases::{Phase, PhaseName};

    fn text() -> TimelineText {
        TimelineText {
            axis: "GiB".into(),
            capacity: "<card>".into(),
            margin_line: "80 %".into(),
            phases: vec!["load".into(), "step".into()],
            peak: "peak".into(),
            component: |id| id.id().to_string(),
            total: "device".into(),
        }
    }

    /// Hand-made phases: 1 GiB of weights, then + 2 GiB of activations; the activations' band sits
    /// on the weights' (1 → 1 then 1 → 3 GiB).
    #[test]
    fn bands_stack_in_bill_order_and_targets_name_the_live_set() {
        let g = 1u64 << 30;
        let phases = vec![
            Phase { name: PhaseName::Load, components: vec![(ComponentId::Weights, g)] },
            Phase {
                name: PhaseName::Forward,
                components: vec![(ComponentId::Weights, g), (ComponentId::Activations, 2 * g)],
            },
        ];
        let bands = stacks(&phases);
        assert_eq!(bands[0], (ComponentId::Weights, vec![(0.0, 1.0), (0.0, 1.0)]));
        assert_eq!(bands[1], (ComponentId::Activations, vec![(1.0, 1.0), (1.0, 3.0)]));
        let chart = timeline(&phases, Some(1), 24 * g, None, &text(), (480, 280));
        assert_eq!(chart.targets.len(), 2);
        assert_eq!(chart.targets[1].title, "step: weights 1.00 GiB, activations 2.00 GiB, device 3.00 GiB");
        assert!(chart.svg.as_str().contains("&lt;card&gt;") && chart.svg.as_str().contains("peak"));
        assert!(!chart.svg.as_str().contains("#111827"), "no measured line without a trace");
        // A trace 5 GiB high raises the axis above the bill's 3 GiB and the card's 24 GiB? No: the
        // card is higher; its line is drawn in the measured colour with its label.
        let m = Measured { points: vec![(0.0, g), (1.0, 5 * g)], label: "<mine>".into() };
        let with = timeline(&phases, Some(1), 24 * g, Some(&m), &text(), (480, 280));
        assert!(with.svg.as_str().contains("#111827") && with.svg.as_str().contains("&lt;mine&gt;"));
        assert_eq!(with.targets.len(), 2);
    }
}
