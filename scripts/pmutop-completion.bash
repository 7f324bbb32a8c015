# pmutop-completion.bash: bash completion for pmutop and pmutop-agent (options, modes, themes,
# event names, formats), asking the program itself so the lists never go stale.
# SPDX-License-Identifier: GPL-2.0-or-later

_pmutop_words() {
	# $1: the program, $2: what to list, then options that change the list (--perf-events DIR)
	local prog=$1 what=$2
	shift 2
	case $what in
	options) "$prog" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u ;;
	modes) "$prog" "$@" --list-modes 2>/dev/null | awk '!/^#/ && NF && $1 != "MODE" { print $1 }' ;;
	groups) "$prog" "$@" --list-modes 2>/dev/null | awk '$1 ~ /^perf:/ { print substr($1, 6) }' ;;
	themes) "$prog" --list-themes 2>/dev/null ;;
	events) "$prog" --list-events 2>/dev/null | awk '$1 ~ /::/ { print $1 }' ;;
	esac
}

# --perf-events DIR and --sysfs-root DIR given earlier on the line: they decide the perf: modes.
_pmutop_lib_args() {
	local i
	for ((i = 1; i + 1 < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--perf-events | --sysfs-root) printf '%s\n%s\n' "${COMP_WORDS[i]}" "${COMP_WORDS[i + 1]}" ;;
		esac
	done
}

_pmutop() {
	local cur prev prog=${COMP_WORDS[0]} lib
	mapfile -t lib < <(_pmutop_lib_args)
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()
	case $prev in
	-m | --mode | --explain)
		mapfile -t COMPREPLY < <(compgen -W "$(_pmutop_words "$prog" modes "${lib[@]}")" -- "$cur")
		return ;;
	-M | --metrics)
		mapfile -t COMPREPLY < <(compgen -W "$(_pmutop_words "$prog" groups "${lib[@]}")" -- "$cur")
		return ;;
	--perf-events)
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		return ;;
	--theme)
		mapfile -t COMPREPLY < <(compgen -W "$(_pmutop_words "$prog" themes)" -- "$cur")
		return ;;
	-e | --events | --list-events)
		mapfile -t COMPREPLY < <(compgen -W "$(_pmutop_words "$prog" events)" -- "$cur")
		return ;;
	-f | --format)
		mapfile -t COMPREPLY < <(compgen -W "text csv json openmetrics" -- "$cur")
		return ;;
	--backend)
		mapfile -t COMPREPLY < <(compgen -W "perf sim" -- "$cur")
		return ;;
	-r | --record | -R | --replay | --mode-file | --sysfs-root | --help-roff)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return ;;
	--remote)
		mapfile -t COMPREPLY < <(compgen -A hostname -- "$cur")
		return ;;
	esac
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_pmutop_words "$prog" options)" -- "$cur")
	elif [[ $COMP_CWORD -eq 1 ]]; then
		mapfile -t COMPREPLY < <(compgen -W "probe" -- "$cur")
	fi
}

complete -F _pmutop pmutop pmutop-agent
