"""ddlcompare's table: every joined point with its predicted and measured time and its signed error, then the
median and largest |error| per configuration, per algorithm and overall, and what was on one side only. Where
the points carry efficiencies against the same baseline, each row shows them and their error in points, and a
last line sums those up beside the time's; where the predictions were sampled, one more says how many
measurements their 90% intervals contain."""


def seconds(value):
    return f"{value * 1e3:.3f} ms" if value < 1 else f"{value:.3f} s"


def efficiency_columns(row):
    if "efficiency_error" not in row:
        return ""
    return (f"  {100 * row['predicted_efficiency']:>7.1f}% {100 * row['measured_efficiency']:>7.1f}% "
            f"{100 * row['efficiency_error']:>+7.1f}")


def print_table(joined, result, unpredicted, unmeasured):
    width = max(len(row["configuration"]) for row in joined)
    # The efficiencies, predicted and measured, and the error in points.
    efficiency_title = f"  {'eff.pred':>8} {'eff.meas':>8} {'points':>7}" if "efficiency_points" in result else ""
    print(f"{'configuration':<{width}}  {'algorithm':<34} {'size':>10} {'predicted':>12} {'measured':>12} {'error':>8}"
          f"{efficiency_title}")
    for row in joined:
        print(f"{row['configuration']:<{width}}  {row['algorithm']:<34} {row['size']:>10} {seconds(row['predicted']):>12} "
              f"{seconds(row['measured']):>12} {100 * row['error']:>+7.1f}%{efficiency_columns(row)}")
    print()
    if len(result["per_configuration"]) > 1:
        for configuration, errors in result["per_configuration"].items():
            print(f"{configuration:<{width}}  median |error| {100 * errors['median_abs_error']:5.1f}%, "
                  f"max {100 * errors['max_abs_error']:5.1f}% over {errors['points']} points")
        print()
    for algorithm, error in result["per_algorithm_median_abs_error"].items():
        print(f"median |error| {100 * error:5.1f}%  {algorithm}")
    worst = result["worst"]
    print(f"\n{result['points']} points: median |error| {100 * result['median_abs_error']:.1f}%, "
          f"max |error| {100 * result['max_abs_error']:.1f}% ({worst['algorithm']}, {worst['size']}, {worst['configuration']})")
    if "efficiency_points" in result:
        worst = result["worst_efficiency"]
        print(f"{result['efficiency_points']} efficiencies: median |error| {100 * result['median_abs_efficiency_error']:.1f} "
              f"points, max |error| {100 * result['max_abs_efficiency_error']:.1f} points "
              f"({worst['algorithm']}, {worst['size']}, {worst['configuration']})")
    if "interval_points" in result:
        print(f"90% intervals: {result['covered']} of {result['interval_points']} measured times inside "
              f"({100 * result['covered'] / result['interval_points']:.0f}%)", end="")
        if "efficiency_interval_points" in result:
            print(f", {result['efficiency_covered']} of {result['efficiency_interval_points']} efficiencies", end="")
        print()
    if unpredicted:
        print(f"{len(unpredicted)} measured point(s) have no prediction")
    if unmeasured:
        print(f"{len(unmeasured)} predicted point(s) were not measured")
    for note in sorted({note for row in joined for note in row["notes"]}):
        print(f"note: {note}")
