"""Review and final labels (issue 23, point 3): a reviewer works through a campaign's disagreements and sets
each pair's final label, with a reason, into the `final/<campaign>` label set (`judging.labels`)."""
