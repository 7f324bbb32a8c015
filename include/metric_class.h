/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metric_class.h: the colour class of a metric value (from the mode's thresholds). */
#ifndef PMUTOP_METRIC_CLASS_H
#define PMUTOP_METRIC_CLASS_H

enum metric_class { METRIC_NONE, METRIC_GOOD, METRIC_WARN, METRIC_BAD, METRIC_NA };

#endif
