/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-table.c: the core's command table; each entry lives beside its handler in cmd-*.c. */
#include "command.h"

extern const struct command cmd_mode_entry, cmd_interval_entry, cmd_cpus_entry, cmd_offcore_entry,
    cmd_add_entry, cmd_remove_entry, cmd_define_entry, cmd_set_entry, cmd_show_entry,
    cmd_record_entry, cmd_stop_entry, cmd_mark_entry, cmd_tick_entry, cmd_jump_entry,
    cmd_rate_entry, cmd_sample_entry, cmd_refresh_entry, cmd_alert_entry, cmd_export_entry,
    cmd_freeze_entry, cmd_perf_events_entry, cmd_likwid_groups_entry, cmd_rows_entry,
    cmd_baseline_entry, cmd_quit_entry;

/* In the order :help lists them. */
const struct command *const command_core_table[] = {
    &cmd_mode_entry,
    &cmd_interval_entry,
    &cmd_cpus_entry,
    &cmd_rows_entry,
    &cmd_offcore_entry,
    &cmd_add_entry,
    &cmd_remove_entry,
    &cmd_define_entry,
    &cmd_set_entry,

    &cmd_show_entry,
    &cmd_record_entry,
    &cmd_stop_entry,
    &cmd_mark_entry,
    &cmd_tick_entry,
    &cmd_jump_entry,
    &cmd_rate_entry,
    &cmd_sample_entry,
    &cmd_refresh_entry,
    &cmd_alert_entry,
    &cmd_export_entry,
    &cmd_freeze_entry,
    &cmd_perf_events_entry,
    &cmd_likwid_groups_entry,
    &cmd_baseline_entry,
    &cmd_quit_entry,
    NULL,
};
