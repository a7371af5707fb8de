/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps-replay.h"

static void set_u32(uint32_t *field, const char *value) {
        char *end = NULL;
        long long v = strtoll(value, &end, 0);

        assert_true(end != value && *end == '\0');
        assert_true(v >= INT32_MIN && v <= UINT32_MAX);
        *field = (uint32_t) v;
}

static void set_str(char *field, size_t size, const char *value) {
        assert_true(strlen(value) < size);
        memset(field, 0, size);
        memcpy(field, value, strlen(value));
}

/* One "command.field value" line of ethtool.txt. */
static void recording_set(Recording *rec, const char *key, const char *value) {
        static const struct {
                const char *name;
                size_t offset;
        } u32_fields[] = {
#define F(cmd, member) { #cmd "." #member, offsetof(Recording, cmd) + offsetof(struct ethtool_##cmd, member) }
                F(ts_info, so_timestamping),
                F(ts_info, phc_index),
                F(ts_info, tx_types),
                F(ts_info, rx_filters),
                F(channels, max_rx),
                F(channels, max_tx),
                F(channels, max_other),
                F(channels, max_combined),
                F(channels, rx_count),
                F(channels, tx_count),
                F(channels, other_count),
                F(channels, combined_count),
#undef F
        };

        if (strcmp(key, "ifname") == 0)
                set_str(rec->ifname, sizeof(rec->ifname), value);
        else if (strcmp(key, "drvinfo.driver") == 0)
                set_str(rec->drvinfo.driver, sizeof(rec->drvinfo.driver), value);
        else if (strcmp(key, "drvinfo.version") == 0)
                set_str(rec->drvinfo.version, sizeof(rec->drvinfo.version), value);
        else if (strcmp(key, "drvinfo.fw_version") == 0)
                set_str(rec->drvinfo.fw_version, sizeof(rec->drvinfo.fw_version), value);
        else if (strcmp(key, "drvinfo.bus_info") == 0)
                set_str(rec->drvinfo.bus_info, sizeof(rec->drvinfo.bus_info), value);
        else if (strcmp(key, "gset.speed") == 0) {
                uint32_t v;

                set_u32(&v, value);
                ethtool_cmd_speed_set(&rec->gset, v);
                rec->gset_known = true;
        } else if (strcmp(key, "drvinfo") == 0 && strcmp(value, "EOPNOTSUPP") == 0)
                rec->drvinfo_error = -EOPNOTSUPP;
        else if (strcmp(key, "ts_info") == 0 && strcmp(value, "EOPNOTSUPP") == 0)
                rec->ts_info_error = -EOPNOTSUPP;
        else if (strcmp(key, "channels") == 0 && strcmp(value, "EOPNOTSUPP") == 0)
                rec->channels_error = -EOPNOTSUPP;
        else {
                for (size_t i = 0; i < sizeof(u32_fields) / sizeof(u32_fields[0]); i++)
                        if (strcmp(key, u32_fields[i].name) == 0) {
                                set_u32((uint32_t *) ((char *) rec + u32_fields[i].offset), value);
                                return;
                        }
                fail_msg("unknown key in recording: %s", key);
        }
}

void recording_load(Recording *rec, const char *device) {
        char path[PATH_MAX], line[256];
        FILE *f;

        *rec = (Recording) {};
        snprintf(rec->sysfs, sizeof(rec->sysfs), FIXTURES "/%s/sys", device);
        snprintf(path, sizeof(path), FIXTURES "/%s/ethtool.txt", device);
        f = fopen(path, "re");
        assert_non_null(f);
        while (fgets(line, sizeof(line), f)) {
                char *key = line, *value;

                line[strcspn(line, "\n")] = '\0';
                if (line[0] == '#' || line[0] == '\0')
                        continue;
                value = strchr(line, ' ');
                if (value)
                        *value++ = '\0';
                else
                        value = line + strlen(line);
                recording_set(rec, key, value);
        }
        fclose(f);
        assert_true(rec->ifname[0] != '\0');
}

/* Answers like the kernel's ethtool ioctl: by command, into the caller's
 * buffer, -ENODEV for an interface that does not exist. */
static int replay_ethtool(void *userdata, const char *ifname, void *cmd_buf, size_t len) {
        Recording *rec = userdata;
        uint32_t cmd;

        rec->calls++;
        assert_true(len >= sizeof(cmd));
        memcpy(&cmd, cmd_buf, sizeof(cmd));
        if (strcmp(ifname, rec->ifname) != 0)
                return -ENODEV;

        switch (cmd) {
        case ETHTOOL_GDRVINFO:
                assert_int_equal(len, sizeof(struct ethtool_drvinfo));
                if (rec->drvinfo_error)
                        return rec->drvinfo_error;
                memcpy(cmd_buf, &rec->drvinfo, len);
                break;
        case ETHTOOL_GET_TS_INFO:
                assert_int_equal(len, sizeof(struct ethtool_ts_info));
                if (rec->ts_info_error)
                        return rec->ts_info_error;
                memcpy(cmd_buf, &rec->ts_info, len);
                break;
        case ETHTOOL_GSET:
                assert_int_equal(len, sizeof(struct ethtool_cmd));
                if (!rec->gset_known)
                        return -EOPNOTSUPP;
                memcpy(cmd_buf, &rec->gset, len);
                break;
        case ETHTOOL_GCHANNELS:
                assert_int_equal(len, sizeof(struct ethtool_channels));
                if (rec->channels_error)
                        return rec->channels_error;
                memcpy(cmd_buf, &rec->channels, len);
                break;
        default:
                return -EOPNOTSUPP;
        }
        memcpy(cmd_buf, &cmd, sizeof(cmd));
        return 0;
}

CapsIO recording_io(Recording *rec) {
        return (CapsIO) {
                .sysfs_root = rec->sysfs,
                .ethtool = replay_ethtool,
                .userdata = rec,
        };
}

void probe_device(const char *device, Recording *rec, LinkCaps *caps) {
        CapsIO io;

        recording_load(rec, device);
        io = recording_io(rec);
        assert_int_equal(caps_probe(&io, rec->ifname, caps), 0);
}
