"""Field tables of every SMF 115/116 structure that mq-smf-csv writes (MQ 8.0 to 10.0).

Layouts follow IBM's CSQDSMFC header (as published, converted, in ibm-messaging/mq-smf-csv
``src/mqsmfstrucW.h``, header level 935). Headings and column order are mq-smf-csv v5.7's.
Fields marked ``inferred=True`` were added after 9.3.5: their offsets come from mq-smf-csv's
published structure sizes for 10.0 (``sizes.master.1000``) and its print order, not from a
header; no public sample carries them yet. Fields with ``member=None`` have no published layout
and always decode as NULL (the CSV loader still fills them).

Example:
    >>> STRUCTURES["QCST"].member("nmsg").offset
    116
"""

from __future__ import annotations

from mqcap.parsers.smf.fields import F, Structure

ENUMS: dict[str, dict[int, str]] = {
    "chld": {-1: "All", 1: "Default", 2: "Shared", 4: "Private", 5: "Fixshared"},
    "cht": {
        1: "Sender",
        2: "Server",
        3: "Receiver",
        4: "Requester",
        5: "All",
        6: "ClntConn",
        7: "SvrConn",
        8: "ClusRcvr",
        9: "ClusSdr",
        10: "MQTT",
        11: "AMQP",
    },
    "chs": {
        0: "Inactive",
        1: "Binding",
        2: "Starting",
        3: "Running",
        4: "Stopping",
        5: "Retrying",
        6: "Stopped",
        7: "Requesting",
        8: "Paused",
        9: "Disconnected",
        13: "Initializing",
        14: "Switching",
    },
    "mon": {-3: "QMgr", -1: "None", 0: "Off", 1: "On", 17: "Low", 33: "Medium", 65: "High"},
    "conn": {
        1: "CICS",
        2: "TSO",
        3: "IMS Ctl",
        4: "IMS MPP/BMP",
        5: "Cmd Svr",
        6: "CHIN",
        7: "RRS",
    },
    "qt": {1: "Local", 2: "Model", 3: "Alias", 6: "Remote", 7: "Cluster", 8: "Topic", 1001: "All"},
    "it": {0: "None", 1: "MsgId", 2: "CorrelId", 4: "MsgToken", 5: "GroupId"},
    "qsgd": {-1: "All", 0: "QMgr", 1: "Copy", 2: "Shared", 3: "Group", 4: "Private", 6: "Live"},
}
# Flag kinds: "flag:<mask>" gives Yes/No; these two pairs print other words.
FLAG_WORDS = {"qpstloc": ("Above", "Below"), "qpstf4kb": ("Fixed", "Paged")}
CF_TYPES = [
    "Lock",
    "Unlock",
    "WrLCCtl",
    "SigXCF",
    "SigCF",
    "Read",
    "Write",
    "StartMon",
    "StopMon",
    "ReadList",
    "New",
    "Move",
    "MoveEntry",
    "Delete",
]


def _u(names: str, kind: str = "u32", v: int = 800, **kw) -> list[F]:
    """Several fields 'Heading=member' at once."""
    out = []
    for pair in names.split():
        heading, _, member = pair.partition("=")
        out.append(F(heading, member, kind, v, **kw))
    return out


def _cfstat(prefix: str, count: int) -> str:
    return " ".join(
        f"{prefix}_{t}_{c}:I" for t in range(count) for c in ("n", "sn", "se", "an", "ae")
    )


def _cf_fields(prefix: str, verb: str, skip: tuple[int, ...] = (), **kw) -> list[F]:
    out = []
    for j, t in enumerate(CF_TYPES):
        if j in skip:
            continue
        idx, idxet = f"{verb}_{t}", f"{verb}_{t}_ET"
        out += [
            F(f"CFCount {{{idx}}}", f"{prefix}_{j}_n", "u32", **kw),
            F(f"CFSync {{{idx}}}", f"{prefix}_{j}_sn", "u32", **kw),
            F(f"CFSync {{{idxet}}}", f"{prefix}_{j}_se", "u32", **kw),
            F(f"CFAsync {{{idx}}}", f"{prefix}_{j}_an", "u32", **kw),
            F(f"CFAsync {{{idxet}}}", f"{prefix}_{j}_ae", "u32", **kw),
        ]
    return out


# ---------------------------------------------------------------- SMF 115 subtype 231 (CHIN)
QCCT = Structure(
    "QCCT",
    "id:H ll:H eye:4s jobn:8s qsgn:4s nocc:I mxcc:I noac:I mxac:I mxtp:I mxlu:I stus:I "
    "stab:Q slim:Q",
    [
        F("Job_Name", "jobn", "text"),
        F("QSG_Name", "qsgn", "text"),
        *_u(
            "Current_Chl_High_Water=nocc Current_Chl_Max=mxcc Active_Chl_High_Water=noac "
            "Active_Chl_Max=mxac Max_TCP_Chl=mxtp Max_LU62_Chl=mxlu Storage_Usage_31=stus"
        ),
        F("Storage_Usage_64", "stab", "u64", 910),
        F("Storage_Limit_64", "slim", "u64", 910),
    ],
    "Channel initiator: channel counts and storage, one row per interval (SMF 115.231).",
    length_member="ll",
)

_QCT = "tskn:I reqn:I cptm:Q eltm:Q wttm:Q"
_QCT_FIELDS = [
    F("Task_Number", "tskn", "u32"),
    F("Task_Index", "__index__", "index"),
    F("Request_Count", "reqn", "u32"),
    F("Task_CPU_Time", "cptm", "stck"),
    F("Task_Elapsed_Time", "eltm", "stck"),
    F("Task_Wait_Time", "wttm", "stck"),
]
QCTDSP = Structure(
    "QCTDSP",
    _QCT + " chln:I",
    [*_QCT_FIELDS, F("Task_Channel_Count", "chln", "s32")],
    "Channel initiator dispatcher task: requests, CPU, elapsed and wait time per interval.",
)
QCTADP = Structure(
    "QCTADP",
    _QCT,
    list(_QCT_FIELDS),
    "Channel initiator adapter task: requests, CPU, elapsed and wait time per interval.",
)
QCTSSL = Structure(
    "QCTSSL",
    _QCT + " lstm:Q lsdu:Q",
    [
        *_QCT_FIELDS,
        F("Max_SSL_Request_Time", "lstm", "time"),
        F("Max_SSL_Request_Duration", "lsdu", "stck"),
    ],
    "Channel initiator SSL server subtask: requests, CPU, elapsed, wait, longest request.",
)
QCTDNS = Structure(
    "QCTDNS",
    _QCT + " lgtm:Q lgdu:Q",
    [
        *_QCT_FIELDS,
        F("Max_DNS_Request_Time", "lgtm", "time"),
        F("Max_DNS_Request_Duration", "lgdu", "stck"),
    ],
    "Channel initiator DNS task: requests, CPU, elapsed, wait, longest lookup.",
)

# ---------------------------------------------------------------- SMF 116 subtype 10 (channels)
QCST = Structure(
    "QCST",
    "id:H ll:H eye:4s cltm:Q chnm:20s chdp:b chty:b chst:b stcl:b cnnm:48s strt:Q ludt:Q "
    "lmst:Q cbsz:I nmsg:I npmg:I batc:I fuba:I bfst:I bfrc:I cscv:I nbyt:Q npby:Q byst:Q "
    "byrc:Q cpra:I etav:I etmn:I etmx:I etdt:Q dnrt:I ntav:I ntmn:I ntmx:I ntdt:Q rqmn:48s "
    "slsn:8s slcn:16s slcs:I ptrc:I qetc:I cbit:I cbdl:I dspn:H rsv1:6s",
    [
        F("Collection_Time", "cltm", "time"),
        F("Chl_Name", "chnm", "text"),
        F("Disposition", "chdp", "enum:chld"),
        F("Type", "chty", "enum:cht"),
        F("Status", "chst", "enum:chs"),
        F("Stat_Setting", "stcl", "enum:mon"),
        F("Connection_Name", "cnnm", "text"),
        F("Start", "strt", "time"),
        F("Stop", "ludt", "time"),
        F("Last_Msg", "lmst", "time"),
        *_u(
            "BatchSize=cbsz Msg_All_Count=nmsg Msg_Persistent_Count=npmg Batches=batc "
            "Full_Batches=fuba Buffers_Sent=bfst Buffers_Rcvd=bfrc Current_Shared_Convs=cscv"
        ),
        *_u(
            "Number_Bytes=nbyt Number_Persistent_Bytes=npby Bytes_Sent=byst Bytes_Received=byrc",
            "u64",
        ),
        F("Compression_Rate", "cpra"),
        F("Exit_Time_Avg", "etav"),
        # mq-smf-csv prints the "no value yet" marker 0x8FFFFFFF as 0.
        F("Exit_Time_Min", "etmn", "min0"),
        F("Exit_Time_Max", "etmx"),
        F("Exit_Time_Max_Date", "etdt", "time"),
        *_u("DNS_Resolution_Time=dnrt Net_Time_Avg=ntav"),
        F("Net_Time_Min", "ntmn", "min0"),
        F("Net_Time_Max", "ntmx"),
        F("Net_Time_Max_Date", "ntdt", "time"),
        F("Remote_QMgr_Or_App", "rqmn", "text"),
        F("SSL_Peer_Serial", "slsn", "hex"),
        F("SSL_CERTI", "slcn", "text"),
        F("SSL_CipherSuite", "slcs", "x32"),
        *_u(
            "Put_Retry_Count=ptrc XmitQ_Empty_Count=qetc Batch_Interval=cbit Batch_Data_Limit=cbdl"
        ),
        F("Dispatcher_Number", "dspn", "u16"),
        F("Remote_Product_ID", None, "text", 1000),
        F("Remote_Product_Version", None, "text", 1000),
    ],
    "Channel accounting: one row per channel instance per interval (SMF 116.10).",
    length_member="ll",
)

# ---------------------------------------------------------------- SMF 115 subtype 1
QSST = Structure(
    "QSST",
    "id:h ll:h eye:4s gplf:I fplf:I fref:I expf:I conf:I gplv:I fplv:I frev:I expv:I conv:I "
    "getm:I frem:I rcnz:I cont:I crit:I abnd:I",
    _u(
        "Fixed_Pools_Alloc=gplf Fixed_Pools_Freed=fplf Fixed_Pools_Seg_Freed=fref "
        "Fixed_Pools_Seg_Expand=expf Fixed_Pools_Seg_Contract=conf Var_Pools_Alloc=gplv "
        "Var_Pools_Freed=fplv Var_Pools_Seg_Freed=frev Var_Pools_Seg_Expand=expv "
        "Var_Pools_Seg_Contract=conv Getmain_Count=getm Freemain_Count=frem "
        "Nonzero_Return_Code=rcnz SOS_Contractions=cont SOS_Set=crit SOS_Abend=abnd"
    ),
    "Storage manager statistics per interval (SMF 115.1).",
    length_member="ll",
)


def _qjst() -> Structure:
    """The QJST structure: log manager statistics (SMF 115.1).

    Long because: IBM's QJST field list, in record order."""
    io = []
    layout_io = []
    for i in (1, 2):
        for j in (1, 2):
            k = f"{i}{j}"
            layout_io.append(
                f"c{k}:I ci{k}:I tt{k}:Q ts{k}:Q mx{k}:Q mxt{k}:Q mxl{k}:8s ms{k}:Q mst{k}:Q "
                f"msl{k}:8s"
            )
            x = f"{{{i}.{j}}}"
            io += [
                F(f"IO_Count {x}", f"c{k}", "u32"),
                F(f"IO_CI {x}", f"ci{k}", "u32"),
                F(f"IO_Total_Time{x}", f"tt{k}", "stck"),
                F(f"IO_Total_Suspend_Time{x}", f"ts{k}", "stck"),
                F(f"IO_Max_Duration{x}", f"mx{k}", "stck"),
                F(f"IO_Max_Time{x}", f"mxt{k}", "time"),
                F(f"IO_Max_Log_ID {x}", f"mxl{k}", "text"),
                F(f"IO_Max_Suspend_Dur{x}", f"ms{k}", "stck"),
                F(f"IO_Max_Suspend_Time{x}", f"mst{k}", "time"),
                F(f"IO_Max_Suspend_Log_ID {x}", f"msl{k}", "text"),
            ]
    zhl32 = (
        "ZHL_Single_CI_Write_Requests=hlsciw ZHL_Multi_CI_Write_Requests=hlmciw "
        "ZHL_CIs_Attempted=hlcicntw ZHL_Single_CI_Writes_Success=hlscis "
        "ZHL_Multi_CI_Writes_Success=hlmcis ZHL_CIs_Successful=hlcicnts "
        "ZHL_Async_Single_CI_Writes=hlscif ZHL_Async_Multi_CI_Writes=hlmcif "
        "ZHL_CIs_Async=hlcicntf Single_CI_Writes_ZHL_Conn=hlscicon "
        "Multi_CI_Writes_ZHL_Conn=hlmcicon CIs_Written_In_Conn_Time=hlconcicnt"
    )
    zhl64 = (
        "ZHL_IO_Time_Single_CI_Max=hlsciwtmax ZHL_IO_Time_Single_CI_Min=hlsciwtmin "
        "ZHL_IO_Time_Single_CI_Total=hlsciwttot ZHL_IO_Time_Multi_CI_Max=hlmciwtmax "
        "ZHL_IO_Time_Multi_CI_Min=hlmciwtmin ZHL_IO_Time_Multi_CI_Total=hlmciwttot "
        "ZHL_IO_Time_Sum_Squares_1=hliosqu_0 ZHL_IO_Time_Sum_Squares_2=hliosqu_1"
    )
    return Structure(
        "QJST",
        "id:2s ll:h eye:4s wrw:i wrnw:i wrf:i wtb:i rbuf:i ract:i rarh:i tvc:i bsds:i bffl:i "
        "bfwr:i alr:i alw:i ciof:i llcp:i wur:i lama:i lams:i lsus:i logw:i ciwr:i serw:i "
        "thrw:i bpag:i f1:16x cmpreq:i cmpfail:i cmpuncmp:q cmpcomp:q decreq:i decfail:i "
        "decuncmp:q deccomp:q f2:96x " + " ".join(layout_io) + " slptu:Q iosqu:Q*2 cp1n:i "
        "cp2n:i hwc:i hwe:i encr:i f3:4x hlsciw:I hlmciw:I hlcicntw:I hlscis:I hlmcis:I "
        "hlcicnts:I hlscif:I hlmcif:I hlcicntf:I hlscicon:I hlmcicon:I hlconcicnt:I "
        "hlsciwtmax:Q hlsciwtmin:Q hlsciwttot:Q hlmciwtmax:Q hlmciwtmin:Q hlmciwttot:Q "
        "hliosqu:Q*2 hlc:I hle:I",
        [
            *_u(
                "WRT_Request_Wait=wrw WRT_Request_NoWait=wrnw WRT_Request_Force=wrf "
                "Unavailable_Buffer_Count=wtb Log_Read_Output_Buffer=rbuf "
                "Log_Read_Active_Log=ract Log_Read_Archive_Log=rarh Tape_Contention_Delays=tvc "
                "BSDS_Access=bsds Active_Log_CI=bffl Buffer_Writes=bfwr Archive_Read=alr "
                "Archive_Write=alw CI_Offloads=ciof Checkpoints=llcp Read_Delayed=wur "
                "Lookahead_Mount_Attempts=lama Lookahead_Mount_Succeed=lams "
                "Log_Request_Suspends=lsus Log_Writes=logw Log_CI=ciwr Log_CI_Serial=serw "
                "Log_Write_Threshold=thrw Log_Write_Buffer_Paged=bpag",
                "s32",
            ),
            *_u("Comp_Requests=cmpreq Comp_Fail=cmpfail", "s32"),
            *_u("Comp_Uncompressed_Bytes=cmpuncmp Comp_Compressed_Bytes=cmpcomp", "s64"),
            *_u("Decomp_Requests=decreq Decomp_Fail=decfail", "s32"),
            *_u("Decomp_Uncompressed_Bytes=decuncmp Decomp_Compressed_Bytes=deccomp", "s64"),
            *io,
            *_u(
                "Writer_Idle_Time=slptu IO_Time_Sum_Squares_1=iosqu_0 "
                "IO_Time_Sum_Squares_2=iosqu_1",
                "u64",
            ),
            *_u(
                "Copy1_New_Logs=cp1n Copy2_New_Logs=cp2n New_Logs_ZHW_Capable=hwc "
                "New_Logs_ZHW_Enabled=hwe",
                "s32",
                912,
            ),
            F("New_Logs_Encrypted", "encr", "s32", 914),
            *_u(zhl32, "u32", 940, inferred=True),
            *_u(zhl64, "u64", 940, inferred=True),
            *_u("New_Logs_ZHL_Capable=hlc New_Logs_ZHL_Enabled=hle", "u32", 940, inferred=True),
        ],
        "Log manager statistics per interval (SMF 115.1).",
        length_member="ll",
    )


QJST = _qjst()

# ---------------------------------------------------------------- SMF 115 subtype 2
_OTEL = (
    "Otel_Prop_Put=ocpa Otel_Prop_Get=ocga Otel_Disc_Put=oahc Otel_Inval_Put=ocpd "
    "Otel_Max_Props_Put=ocmp Otel_Inval_Get=ocgd Otel_State_Trunc_Put=ocps "
    "Otel_State_Trunc_Get=ocgs Otel_Spans_Consumer=oscs Otel_Spans_Producer=osps "
    "Otel_Nosample_Put=osns Otel_Disc_Get=ocda Otel_Span_Limit_Producer=ospl "
    "Otel_Span_Limit_Consumer=oscl Otel_Span_Limit_Storage=osfs Otel_Span_Success=osok "
    "Otel_Span_Failed=osfr Otel_Span_Failed_Capacity=osfc Otel_SMF_Success=otso "
    "Otel_SMF_Failed=otsr Otel_SMF_Failed_Capacity=otsc"
)
QMST = Structure(
    "QMST",
    "id:H ll:H eye:4s open:i clos:i get:i put:i put1:i inq:i inql:i set:i endw:i calh:i "
    "sub:i subr:i cb:i ctl:i stus:i pubs:i spp:q snp:q pbp:q nbp:q "
    + " ".join(f"{p.split('=')[1]}:Q" for p in _OTEL.split())
    + " otpu:Q otpw:Q otpd:Q otsk:i f1:4x imss:Q imsp:Q imsd:Q",
    [
        *_u(
            "Open=open Close=clos Get=get Put=put Put1=put1 Inq=inq Inql=inql Set=set "
            "Endw=endw Close_Handles=calh Sub=sub SubReq=subr CB=cb CTL=ctl Status=stus "
            "Pubs=pubs",
            "s32",
        ),
        *_u("PersPuts=spp NonPersPuts=snp PersPutBytes=pbp NonPersPutBytes=nbp", "s64", 903),
        *_u(_OTEL, "u64", 943, inferred=True),
        *_u(
            "Otel_CPU_Time=otpu Otel_Wait_Work_Time=otpw Otel_Wait_SMF_Time=otpd",
            "stck",
            943,
            inferred=True,
        ),
        F("Otel_EmissionTasks", "otsk", "s32", 943, inferred=True),
        *_u(
            "Otel_IMS_Bridge_Spans=imss Otel_IMS_Bridge_Propagates=imsp "
            "Otel_IMS_Bridge_Discard=imsd",
            "u64",
            1000,
            inferred=True,
        ),
    ],
    "Message manager: MQI call counts per interval (SMF 115.2).",
    length_member="ll",
)

QIST = Structure(
    "QIST",
    "id:h ll:h eye:4s mget:I mput:I mblr:I dcre:I dput:I ddel:I dget:I dloc:I mcnt:I alst:I "
    "lomm:I dlmm:I enum:I raio:I rabp:I getd:I getb:I f1:4x",
    _u(
        "Msg_Get=mget Msg_Put=mput Msg_Browse_Lock=mblr Object_Create=dcre Object_Put=dput "
        "Object_Delete=ddel Object_Get=dget Object_Locate=dloc Msg_Count=mcnt "
        "Stgclass_Change=alst Lock_Marked_Msg=lomm Delete_Marked_Msg=dlmm Enumerates=enum "
        "Gets_From_Disk=getd Gets_From_BufferPool=getb"
    ),
    "Data manager statistics per interval (SMF 115.2).",
    length_member="ll",
)

QPST = Structure(
    "QPST",
    "id:H ll:H eye:4s pool:i nbuf:i cbsl:i cbs:i getp:i getn:i rio:i stw:i tpw:i wio:i imw:i "
    "dwt:i dmc:i stl:i stla:i sos:i flags:I f1:28x",
    [
        *_u(
            "BufferPool=pool Buffer_Count=nbuf Lowest_Stealable=cbsl Current_Stealable=cbs "
            "Getp_Old_Requests=getp Getp_New_Requests=getn DASD_Read=rio Set_Write_Pages=stw "
            "Pages_Written=tpw DASD_Write=wio Sync_Writes=imw Defer_Write_THold_Reached=dwt "
            "Sync_Write_THold_Reached=dmc Buffer_Steals=stl Buffer_Steals_Hash_Changes=stla "
            "Suspend_No_Buffers=sos",
            "s32",
        ),
        F("LOC", "flags", "flag:80000000:Above:Below"),
        F("FIX", "flags", "flag:40000000:Fixed:Paged"),
    ],
    "Buffer manager statistics, one row per buffer pool per interval (SMF 115.2 and 115.215).",
    length_member="ll",
)

QLST = Structure(
    "QLST",
    "id:h ll:h eye:4s getl:I hldl:I rell:I f1:12x",
    _u("Get_Lock_Requests=getl Get_Lock_Held=hldl Release_Lock=rell"),
    "Lock manager statistics per interval (SMF 115.2).",
    length_member="ll",
)

_Q5_TASKS = (
    "dele",
    "list",
    "read",
    "updt",
    "writ",
    "scss",
    "scsi",
    "scsu",
    "scsd",
    "ssks",
    "sski",
    "sskd",
)
_Q5_LMS = ("lmss", "lmsi", "lmsu", "lmsd", "lmsl")


def _q5_stck_layout(prefixes) -> str:
    return " ".join(f"{p}{s}:Q" for p in prefixes for s in ("tcuw", "tmxw", "scuw", "smxw"))


def _q5_stck_fields(prefixes, names) -> list[F]:
    out = []
    for p, n in zip(prefixes, names, strict=True):
        pre, op = n
        out += [
            F(f"{pre}Thread_{op}_Elapsed", f"{p}tcuw", "stck"),
            F(f"{pre}Thread_{op}_Max", f"{p}tmxw", "stck"),
            F(f"{pre}SQL_{op}_Elapsed", f"{p}scuw", "stck"),
            F(f"{pre}SQL_{op}_Max", f"{p}smxw", "stck"),
        ]
    return out


Q5ST = Structure(
    "Q5ST",
    "id:h ll:h eye:4s numtask:I acttask:I conncnt:I disccnt:I dhigmax:I abndcnt:I requcnt:I "
    "deadcnt:I delecnt:I listcnt:I readcnt:I updtcnt:I writcnt:I scssel:I scsins:I scsupd:I "
    "scsdel:I ssksel:I sskins:I sskdel:I scsbfts:I scsmaxr:I f1:8x "
    + _q5_stck_layout(_Q5_TASKS)
    + " lmssel:I lmsins:I lmsupd:I lmsdel:I lmslis:I f2:4x "
    + _q5_stck_layout(_Q5_LMS),
    [
        *_u(
            "Server_Tasks=numtask Active_Server_Tasks=acttask Connect_Requests=conncnt "
            "Disconnect_Requests=disccnt Max_Request_Queue_Depth=dhigmax "
            "DB2_Task_Abends=abndcnt Request_Requeues=requcnt Deadlock_Timeouts=deadcnt "
            "Delete_Requests=delecnt List_Requests=listcnt Read_Requests=readcnt "
            "Update_Requests=updtcnt Write_Requests=writcnt DB2_Blob_Selects=lmssel "
            "DB2_Blob_Inserts=lmsins DB2_Blob_Updates=lmsupd DB2_Blob_Deletes=lmsdel "
            "DB2_Blob_Lists=lmslis SCST_Selects=scssel SCST_Inserts=scsins "
            "SCST_Updates=scsupd SCST_Deletes=scsdel SCST_Buff_Too_Small=scsbfts "
            "SCST_Max_Rows=scsmaxr SSKT_Selects=ssksel SSKT_Inserts=sskins "
            "SSKT_Deletes=sskdel"
        ),
        *_q5_stck_fields(
            _Q5_TASKS,
            [
                ("", "Delete"),
                ("", "List"),
                ("", "Read"),
                ("", "Update"),
                ("", "Write"),
                ("SCST_", "Select"),
                ("SCST_", "Insert"),
                ("SCST_", "Update"),
                ("SCST_", "Delete"),
                ("SSKT_", "Select"),
                ("SSKT_", "Insert"),
                ("SSKT_", "Update"),
            ],
        ),
        *_q5_stck_fields(
            _Q5_LMS,
            [
                ("BLOB_", "Select"),
                ("BLOB_", "Insert"),
                ("BLOB_", "Update"),
                ("BLOB_", "Delete"),
                ("BLOB_", "List"),
            ],
        ),
    ],
    "Db2 manager (shared queue) statistics per interval (SMF 115.2).",
    length_member="ll",
)

QEST = Structure(
    "QEST",
    "str:12s strn:I csec:I cmec:I sstc:Q mstc:Q rsec:I rmec:I sful:I mnus:I mlus:I f1:4x",
    [
        F("Structure_Name", "str", "text"),
        *_u(
            "Structure_Number=strn IXLLSTE_Calls=csec IXLLSTM_Calls=cmec "
            "IXLLSTE_Redrives=rsec IXLLSTM_Redrives=rmec Structure_Full=sful "
            "Max_In_Use_Entries=mnus Max_In_Use_Elements=mlus"
        ),
        F("IXLLSTE_Calls_Time", "sstc", "stck"),
        F("IXLLSTM_Calls_Time", "mstc", "stck"),
    ],
    "Coupling facility manager statistics, one row per CF structure in use (SMF 115.2).",
)
QEST_HEADER = 8  # qestid, qestll, eyecatcher; then 64 entries of QEST's layout
QEST_ENTRIES = 64

QESD = Structure(
    "QESD",
    "id:H ll:H eye:4s str:12s strn:I smbt:I smbs:I smbd:I smbu:I smbf:I smmc:I smar:I smfr:I "
    "smrr:I smcr:I smap:I smfp:I smrp:I smcp:I smfl:I smmm:I smmu:I smmf:I bfsz:I bfto:I "
    "bfus:I bfup:I bffs:I bffe:I bfpw:I bfbw:I bfgb:I bfgv:I bfgm:I bfgf:I bfgl:I bfgn:I "
    "bfrr:I bfrs:I bfrp:I bfwr:I bffb:I bfdb:I bfwp:I bfwb:I bfpt:Q bfbt:Q bfmu:I bfmf:I "
    "bfmp:I bfmb:I ioha:I iohu:I ioci:I ioca:I iofr:I iofp:I ioft:Q iofw:Q iowr:I iowp:I "
    "iowt:Q ioww:Q iorr:I iorp:I iort:Q iorw:Q ioor:I ioop:I ioot:Q ioow:Q flag:I spare:I",
    [
        F("Structure", "str", "text"),
        *_u(
            "Structure_Number=strn Blocks_SMDS=smbt Blocks_Space_Map=smbs "
            "Blocks_Msg_Data=smbd Blocks_In_Use=smbu Blocks_Free=smbf Messages_In_Dataset=smmc "
            "Allocation_Requests=smar Release_Requests=smfr Reallocation_Requests=smrr "
            "Cleanup_Requests=smcr Pages_Allocated=smap Pages_Freed=smfp "
            "Pages_Reallocated=smrp Pages_Cleaned_Up=smcp Failed_Allocates=smfl "
            "Max_Msg_Count=smmm Max_Used_Blocks=smmu Min_Free_Blocks=smmf Buffer_Size=bfsz "
            "Buffer_Total=bfto Buffer_Shared_Used=bfus Buffer_Private_Used=bfup "
            "Free_Saved_Buffers=bffs Free_Empty_Buffers=bffe Pool_Waiters=bfpw "
            "Buffer_Waiters=bfbw Buffer_Get_Count=bfgb Buffer_Get_Valid=bfgv "
            "Buffer_Get_Empty=bfgm Buffer_Get_Free=bfgf Buffer_Stole=bfgl Buffer_No_Get=bfgn "
            "Total_Read_Requests=bfrr Read_Saved=bfrs Read_Partial=bfrp "
            "Total_Write_Requests=bfwr Buffer_Free_Valid_Data=bffb "
            "Buffer_Empty_Discarded=bfdb Waited_For_Pool=bfwp Waited_For_Buffer=bfwb"
        ),
        F("Pool_Wait_Time", "bfpt", "stck"),
        # mq-smf-csv prints this 8-byte STCK as a 32-bit integer: its first (high) word.
        F("Buffer_Wait_Time", "bfbt", "u32"),
        *_u(
            "Buffer_Max_Used=bfmu Buffer_Min_Free=bfmf Pool_Max_Waiters=bfmp "
            "Buffer_Max_Waiters=bfmb High_Allocated_Ctl_Interval=ioha "
            "High_Used_Ctl_Interval=iohu Ctl_Interval_Size=ioci Ctl_Area_Size=ioca "
            "Format_Write_Requests=iofr Format_Total_Pages=iofp"
        ),
        *_u("Format_IO_Time=ioft Format_IO_Wait=iofw", "stck"),
        *_u("Write_Requests=iowr Write_Total_Pages=iowp"),
        *_u("Write_IO_Time=iowt Write_IO_Wait=ioww", "stck"),
        *_u("Read_Requests=iorr Read_Total_Pages=iorp"),
        *_u("Read_IO_Time=iort Read_IO_Wait=iorw", "stck"),
        *_u("Other_Read_Requests=ioor Other_Read_Total_Pages=ioop"),
        *_u("Other_Read_IO_Time=ioot Other_Read_IO_Wait=ioow", "stck"),
        # mq-smf-csv tests the word after the flag word; kept so both sources agree.
        F("Encrypted", "spare", "flag:80000000:Yes:No", 914),
    ],
    "Shared message data set statistics, one row per CF structure (SMF 115.2).",
    length_member="ll",
)

QTST = Structure(
    "QTST",
    "id:h ll:h eye:4s stot:I sdur:I shig:I*3 slow:I*3 sexp:I tmsg:I sphw:I ptot:I*3 phig:I "
    "plow:I pnos:I f1:4x ethw:Q etto:Q",
    [
        *_u(
            "Total_Subs_Count=stot Durable_Subs_Count=sdur Subs_High_Water_API=shig_0 "
            "Subs_High_Water_Admin=shig_1 Subs_High_Water_Proxy=shig_2 "
            "Subs_Low_Water_API=slow_0 Subs_Low_Water_Admin=slow_1 Subs_Low_Water_Proxy=slow_2 "
            "Subs_Expired=sexp Total_Published_Msg=tmsg Single_Sub_High_Water=sphw "
            "Pubs_Total_API=ptot_0 Pubs_Total_Admin=ptot_1 Pubs_Total_Proxy=ptot_2 "
            "Pubs_High_Water=phig Pubs_Low_Water=plow Pubs_No_Subscriber=pnos"
        ),
        *_u("Publish_Elapsed_High_Water=ethw Publish_Elapsed_Total=etto", "stck"),
    ],
    "Topic manager statistics per interval (SMF 115.2).",
    length_member="ll",
)

# ---------------------------------------------------------------- other SMF 115 subtypes
QSPH = Structure(
    "QSPH",
    "id:H ll:H eye:4s stor:i ostor:i xstor:i bsize:H bcnt:H count:I dspnm:8s name:48s "
    "flags:B f1:3x",
    [
        *_u("Current_Size=stor Previous_Size=ostor Expansion_Size=xstor", "s32"),
        *_u("Record_Size=bsize Records_per_Segment=bcnt", "u16"),
        F("PHB_Count", "count", "u32"),
        F("Dataspace_Name", "dspnm", "dspname"),
        F("Name", "name", "text"),
        F("Attr_Fixed", "flags", "flag:80:Yes:No"),
        F("Attr_Glob", "flags", "flag:40:Yes:No"),
        F("Attr_DSP", "flags", "flag:20:Yes:No"),
        F("Attr_IVSA", "flags", "flag:10:Yes:No"),
        F("Attr_64BIT", "flags", "flag:08:Yes:No"),
    ],
    "Storage pool header statistics (SMF 115.5).",
    length_member="ll",
)

QSGM = Structure(
    "QSGM",
    "id:H ll:H eye:4s lvtot:i lvnew:i lvmax:i lvmin:i count:i scls:B f2:3x csect:8s offset:i f3:4x",
    [
        *_u(
            "Length_Total=lvtot New_Records=lvnew Length_Max=lvmax Length_Min=lvmin Requests=count",
            "s32",
        ),
        F("Storage_Class", "scls", "u8"),
        # mq-smf-csv prints the CSECT field as 8 EBCDIC characters (a module name), not a number.
        F("CSECT", "csect", "text"),
        F("CSECT_Offset", "offset", "s32"),
    ],
    "Getmain statistics (SMF 115.6).",
    length_member="ll",
)

# Headings as mq-smf-csv prints them (printQSRS.c); the members keep IBM's CSQDSMFC names.
QSRS = Structure(
    "QSRS",
    "id:H ll:H eye:4s phbgf:i phbgv:i phblf:i phblv:i gmbt:i stkt:i strta:i siza:i crgtp:i "
    "limit:i loal:i oloal:i hial:i ohial:i smfl:i smfr:i estra:i esiza:i ergtp:i elim:i "
    "eloal:i oeloal:i ehial:i oehial:i smfel:i smfer:i memlim:Q abytes:Q gbytes:Q nmomb:I "
    "memlims:B f1:3x fmct:i f2:4x aval:i mvs:i crit:i sos:i aval64:Q cush64:Q smds64:Q "
    "phblgf:Q phblgv:Q phbllf:Q phbllv:Q gmbl:Q",
    [
        *_u(
            "PHB_Global_Fixed=phbgf PHB_Global_Variable=phbgv PHB_Local_Fixed=phblf "
            "PHB_Local_Variable=phblv GMB_Total=gmbt Stack_Total=stkt "
            "Region_24_Start=strta Region_24_Size=siza Region_24_Top=crgtp "
            "Region_24_Limit=limit User_24_Alloc=loal User_24_Alloc_Previous=oloal "
            "System_24_Alloc=hial System_24_Alloc_Previous=ohial SMF_24_Limit=smfl "
            "SMF_24_Average=smfr Region_31_Start=estra Region_31_Size=esiza "
            "Region_31_Top=ergtp Region_31_Limit=elim User_31_Alloc=eloal "
            "User_31_Alloc_Previous=oeloal System_31_Alloc=ehial "
            "System_31_Alloc_Previous=oehial SMF_31_Limit=smfel SMF_31_Average=smfer",
            "s32",
        ),
        *_u("MemLimit=memlim Total_Object_Size=abytes High_Water_Usable=gbytes", "u64"),
        F("Object_Allocated", "nmomb", "s32"),
        F("MemLimit_Source", "memlims", "u8"),
        F("RAX_Frames", "fmct", "s32"),
        *_u(
            "Avail_31=aval MVS_31_Reserved=mvs CRIT_31_Reserved=crit SOS_31_Reserved=sos",
            "s32",
        ),
        *_u(
            "Avail_64=aval64 Cushion_64=cush64 SMDS_64=smds64 "
            "PHB_Latch_Global_Fixed=phblgf PHB_Latch_Global_Variable=phblgv "
            "PHB_Latch_Local_Fixed=phbllf PHB_Latch_Local_Variable=phbllv GMB_Latch=gmbl",
            "u64",
        ),
    ],
    "Region (address space storage) statistics (SMF 115.7).",
    length_member="ll",
)

QIS1 = Structure(
    "QIS1",
    "id:H ll:H eye:4s psno:I bpno:I topg:I unpg:I ppg:I nppg:I full:I pchi:I dwpn:I dwpp:I "
    "dwpt:Q imwn:I imwp:I imwt:Q getn:I getp:I gett:Q ckpp:I expn:H strn:B expm:B stat:B "
    "f1:3x flags:I",
    [
        *_u("Pageset=psno BufferPool=bpno"),
        F("Pageset_Status", "stat", "u8", 900),
        *_u(
            "Total_Pages=topg Unused_Pages=unpg Persistent_Pages=ppg Nonpersistent_Pages=nppg "
            "Full_Count=full Put_Cursor_High=pchi Page_Write_IO=dwpn Pages_Written=dwpp",
            v=900,
        ),
        F("Page_Write_IO_Time", "dwpt", "stck", 900),
        *_u("IMW_Pages_IO=imwn IMW_Pages=imwp", v=900),
        F("IMW_Pages_IO_Time", "imwt", "stck", 900),
        *_u("Pages_Read_IO=getn Pages_Read=getp", v=900),
        F("Pages_Read_IO_Time", "gett", "stck", 900),
        F("Checkpoint_Pages_Written", "ckpp", "u32", 900),
        F("Stripes", "strn", "u8", 900),
        F("Expansions", "expn", "s16", 900),
        F("Expansion_Method", "expm", "u8", 900),
        F("Expand", "flags", "flag:80000000:Yes:No", 900),
        F("Encrypted", "flags", "flag:40000000:Yes:No", 914),
    ],
    "Page set statistics, one row per page set per interval (SMF 115.201, MQ 9.0 and later).",
    length_member="ll",
)

# ---------------------------------------------------------------- SMF 116 subtype 0
QMAC = Structure(
    "QMAC",
    # QWHC (the correlation header at the end of QWHS) first, then QMAC: decoded together.
    "wlen:h wtyp:B f0:1x aid:8s ccv:12s ccn:8s f1:8x opid:8s atyp:I tokn:22s nid:16s f2:2x "
    "id:h ll:h eye:4s cput:Q putl:I*4 getl:I*4",
    [
        F("Authorisation_ID", "aid", "text"),
        F("Correl_ID", "ccv", "hex"),
        F("Connection_Name", "ccn", "text"),
        F("Operator_ID", "opid", "text"),
        F("Application_Type", "atyp", "enum:conn"),
        F("Accounting_Token", "tokn", "hex"),
        F("Network_ID", "nid", "hex"),
        F("CPU_Time", "cput", "stck"),
        *_u(
            "Puts_Len_0to99=putl_0 Puts_Len_100to999=putl_1 Puts_Len_1000to9999=putl_2 "
            "Puts_Len_10000=putl_3 Gets_Len_0to99=getl_0 Gets_Len_100to999=getl_1 "
            "Gets_Len_1000to9999=getl_2 Gets_Len_10000=getl_3"
        ),
    ],
    "Class 1 accounting: CPU and put/get counts by message size per task (SMF 116.0).",
)
QWHC_SIZE = 92

# ---------------------------------------------------------------- SMF 116 subtypes 1 and 2
_WTAS_LAYOUT = (
    "shex:h len:h eye:4s strt:Q mthr:i wtas:i latc:Q hshi:i next:I flag:I wqct:I lwet:Q*32 "
    "lwn:i*32 otet:Q otct:Q otn:i mlw:Q mlwn:i lown:8s cmet:Q cmct:Q cmn:i baet:Q bact:Q "
    "ban:i f7:4x jwet:Q jwn:I jwb:I jcet:Q jcn:I susn:I suse:Q pse0:Q psn0:I dbet:Q dbes:Q "
    "dbmt:Q dbms:Q dbct:I csec:I cmec:I rsec:I rmec:I sstc:Q mstc:Q smrs:I smrb:I smwb:I "
    "smrp:I smwp:I smwt:Q ints:Q inte:Q gpo:i gpn:i cqf:I cqb:I ver:I f2:4x dbpt:Q dbgt:Q "
    "pbhw:Q pbtt:Q tpet:Q tpct:Q tpn:I suet:Q suct:Q sun:I susc:I susl:I sqet:Q sqct:Q sqn:I "
    "ctet:Q ctct:Q ctn:I stet:Q stct:Q stn:I f9:4x ctsr:Q f10:8x "
    + _cfstat("cm", 20)
    + " "
    + _cfstat("pr", 20)
    + " f12:400x pret:Q prct:Q prn:I f13:4x lmax:Q*32"
)


def _wtas_fields() -> list[F]:
    latches = []
    for i in range(32):
        latches += [
            F(f"Latch_Wait_Time{{{i + 1}}}", f"lwet_{i}", "stck"),
            F(f"Latch_Wait_Count {{{i + 1}}}", f"lwn_{i}", "s32"),
        ]
    v4, v5, v8 = {"struct_version": 4}, {"struct_version": 5}, {"struct_version": 8}
    return [
        F("Record_Version", "ver", "s32"),
        F("Correl", "strt", "hex16"),
        F("Start_Time", "strt", "time"),
        F("Block_Count", "wqct", "s32"),
        *latches,
        F("Longest_Latch", "lown", "hex"),
        *_u("Other_MQI_ET=otet Other_MQI_CT=otct", "stck"),
        F("Other_MQI_Count", "otn", "s32"),
        F("Max_Latch_Wait_Time", "mlw", "stck"),
        F("Max_Latch_Wait_ID", "mlwn", "s32"),
        *_u("Commit_ET=cmet Commit_CT=cmct", "stck"),
        F("Commit_Count", "cmn", "s32"),
        *_u("Backout_ET=baet Backout_CT=bact", "stck"),
        F("Backout_Count", "ban", "s32"),
        F("Journal_Write_ET", "jwet", "stck"),
        *_u("Journal_Write_Count=jwn Journal_Write_Bytes=jwb"),
        F("Journal_Forced_Write_ET", "jcet", "stck"),
        *_u("Journal_Forced_Write_Count=jcn Task_Suspend_Count=susn"),
        F("Task_Suspend_Time", "suse", "stck"),
        F("Pageset0_Log_ET", "pse0", "stck"),
        F("Pageset0_Log_Count", "psn0", "u32"),
        *_u(
            "DB2_Elapse_Thread=dbet DB2_Elapse_Server=dbes DB2_Max_Elapse_Thread=dbmt "
            "DB2_Max_Elapse_Server=dbms",
            "stck",
        ),
        F("DB2_Request_Count", "dbct", "u32"),
        *_u("DB2_Bytes_Written=dbpt DB2_Bytes_Read=dbgt", "u64"),
        *_u(
            "CF_STE_Call_Count=csec CF_STM_Call_Count=cmec CF_STE_Redrive_Count=rsec "
            "CF_STM_Redrive_Count=rmec"
        ),
        *_u("CF_STE_Elapsed=sstc CF_STM_Elapsed=mstc", "stck"),
        *_u("WTAS_Interval_Start=ints WTAS_Interval_End=inte", "time"),
        *_u("Get_Pages_Old=gpo Get_Pages_New=gpn", "s32"),
        *_u(
            "BufferPool_Latch_Wait=pbhw Held_BufferPool_Latch_ET=pbtt Topic_ET=tpet "
            "Topic_CT=tpct Subscribe_ET=suet Subscribe_CT=suct",
            "stck",
            **v4,
        ),
        *_u(
            "Subscribe_Count=sun Subscribe_Selector_Count=susc Subscribe_Max_Select_Len=susl", **v4
        ),
        *_u("SubReq_ET=sqet SubReq_CT=sqct", "stck", **v4),
        F("SubReq_Count", "sqn", "u32", **v4),
        *_u("MQCTL_ET=ctet MQCTL_CT=ctct", "stck", **v4),
        F("MQCTL_Count", "ctn", "u32", **v4),
        F("MQCTL_CPU", "ctsr", "stck", **v4),
        *_u("MQSTAT_ET=stet MQSTAT_CT=stct", "stck", **v4),
        F("MQSTAT_Count", "stn", "u32", **v4),
        *_cf_fields("cm", "Cmit", skip=(9,), **v4),
        *_cf_fields("pr", "Prep", skip=(9,), **v4),
        *_u(
            "SMDS_Write_Bytes=smwb SMDS_Read_Bytes=smrb SMDS_Write_Pages=smwp "
            "SMDS_Read_Pages=smrp SMDS_Saved_Reads=smrs",
            **v5,
        ),
        F("SMDS_IO_Wait_Time", "smwt", "stck", **v5),
        *_u("Prepare_ET=pret Prepare_CT=prct", "stck", **v8),
        F("Prepare_Count", "prn", "u32", **v8),
        *[F(f"Longest_Latch{{{i + 1}}}", f"lmax_{i}", "stck", **v8) for i in range(32)],
    ]


WTAS = Structure(
    "WTAS",
    _WTAS_LAYOUT,
    _wtas_fields(),
    "Task accounting (class 3): one row per task per accounting record (SMF 116.1).",
    length_member="len",
    version_member="ver",
)

WTID = Structure(
    "WTID",
    "shex:h len:h eye:4s atyp:i ccn:8s opid:8s nid:16s cori:12s uowi:24s acct:22s chl:20s "
    "chlc:48s ctxt:16s tran:8s f1:2x cfwd:I cbwd:I wtas:I",
    [
        F("WTAS_Correlator", "__correl__", "correl"),
        F("Appl_Type", "atyp", "enum:conn"),
        F("Connection_Name", "ccn", "text"),
        F("Operator_ID", "opid", "text"),
        F("NID", "nid", "hex"),
        F("Correl(HEX)", "cori", "hex"),
        F("Correl(CHAR)", "cori", "text"),
        F("UOW_ID", "uowi", "hex"),
        F("Accounting_Token", "acct", "hex"),
        F("Channel_Name", "chl", "text"),
        F("Channel_Connection_Name", "chlc", "text"),
        F("Context_Token", "ctxt", "hex"),
        F("MVS_UserId", "tran", "text"),
    ],
    "Task identification for class 3 accounting (SMF 116.1 and 116.2).",
    length_member="len",
)


def _wq_fields() -> list[F]:
    """The fields of the WQ structure (queue accounting, SMF 116), each from the structure
    version that added it.

    Long because: IBM's WQ field list, in record order."""
    v = {f"v{n}": {"struct_version": n} for n in (2, 4, 5, 6, 8, 9)}
    verbs = ["Open", "Close", "Get", "Put", "Put1"]
    cf = []
    for i, verb in enumerate(verbs):
        cf += _cf_fields(f"cf{i}", verb, **v["v6"])
    return [
        F("Correlation", "correl", "hex"),
        F("Open_Name", "objname", "text"),
        F("Base_Name", "basename", "text"),
        F("Open", "opentime", "time"),
        F("Close", "clostime", "time"),
        F("Queue", "qtype", "enum:qt"),
        F("Index", "indxtype", "enum:it"),
        F("Scope", "qsgdisp", "enum:qsgd"),
        *_u("Open_ET=openet Open_CT=openct", "stck"),
        F("Open_Count", "openn"),
        *_u("Close_ET=closeet Close_CT=closect", "stck"),
        F("Close_Count", "closen"),
        *_u("Get_ET=getet Get_CT=getct", "stck"),
        *_u(
            "Get_Count=getn Get_Browse_Any_Count=getbrwa Get_Browse_Specific_Count=getbrws "
            "Get_Dest_Any_Count=geta Get_Dest_Specific_Count=gets Get_Invalid=geterr"
        ),
        F("Get_Log_UNF_ET", "getjwet", "stck"),
        F("Get_Log_UNF_Count", "getjwn"),
        F("Get_Pageset_ET", "getpset", "stck"),
        F("Get_Pageset_Count", "getpsn"),
        F("Get_Suspend_ET", "getsuset", "stck"),
        *_u(
            "Get_Suspend_Count=getsusn Get_Pages_Skipped_Count=getepage "
            "Get_Messages_Skipped_Count=getsmsg Get_Messages_Expired_Count=getexmsg"
        ),
        *_u("Put_ET=putet Put_CT=putct", "stck"),
        *_u("Put_Count=putn Put_IGQ_Count=putigq"),
        F("Put_Log_UNF_ET", "putjwet", "stck"),
        F("Put_Log_UNF_Count", "putjwn"),
        F("Put_Suspend_ET", "putsuset", "stck"),
        F("Put_Suspend_Count", "putsusn"),
        F("Put_Pageset_Access_ET", "putpset", "stck"),
        F("Put_Pageset_Access_Count", "putpsn"),
        *_u("Put1_ET=put1et Put1_CT=put1ct", "stck"),
        *_u("Put1_Count=put1n Put1_IGQ_Count=put1igq"),
        F("Put1_Log_UNF_ET", "put1jwet", "stck"),
        F("Put1_Log_UNF_Count", "put1jwn"),
        F("Put1_Suspend_ET", "put1suset", "stck"),
        F("Put1_Suspend_Count", "put1susn"),
        F("Put1_Pageset_Access_ET", "put1pset", "stck"),
        F("Put1_Pageset_Access_Count", "put1psn"),
        *_u("Inq_ET=inqet Inq_CT=inqct", "stck"),
        F("Inq_Count", "inqn"),
        *_u("Set_ET=setet Set_CT=setct", "stck"),
        F("Set_Count", "setn"),
        F("Set_UNF_Log_ET", "setjwet", "stck"),
        *_u("Set_UNF_Log_Count=setjwn Pageset_ID=nps"),
        F("CF_Structure", "cfstrucname", "text"),
        F("BufferPool_ID", "nbuffpool"),
        *_u("Total_Bytes_Put=putbytes Total_Bytes_Get=getbytes", "s64"),
        *_u(
            "Total_Valid_Puts=validput Total_Valid_Gets=validget Generated_Msgs=ngen "
            "Get_Max_Msg_Size=getmaxms",
            "s32",
        ),
        F("Get_Min_Msg_Size", "getminms", "minsize"),
        F("Put_Max_Msg_Size", "putmaxms", "s32"),
        F("Put_Min_Msg_Size", "putminms", "minsize"),
        *_u(
            "Max_Time_On_Queue=maxlatnt Min_Time_On_Queue=minlatnt Total_Time_On_Queue=totlatnt",
            "stck",
        ),
        *_u("Use_Count=use_count Total_Use=total_use", "s32"),
        *_u(
            "Get_Persistent_Count=getpmsg Put_Persistent_Count=putpmsg "
            "Put1_Persistent_Count=put1pmsg Max_Depth=maxqdpth",
            "s32",
            **v["v2"],
        ),
        F("Get_Valid", "getdval", **v["v4"]),
        F("Get_LogForce_ET", "getjcet", "stck", **v["v4"]),
        *_u("Get_LogForce_Count=getjcn Put_Waiting_Getter_Count=putpwg", **v["v4"]),
        F("Put_LogForce_ET", "putjcet", "stck", **v["v4"]),
        *_u("Put_LogForce_Count=putjcn Put1_Waiting_Getter_Count=put1pwg", **v["v4"]),
        F("Put1_LogForce_ET", "put1jcet", "stck", **v["v4"]),
        F("Put1_LogForce_Count", "put1jcn", **v["v4"]),
        F("Set_LogForce_ET", "setjcet", "stck", **v["v4"]),
        *_u("Set_LogForce_Count=setjcn Put_Shared_Queue=putdsq", **v["v4"]),
        *_u("Select_Count=selcount Select_Max_Length=selmaxln", **v["v5"]),
        *_u("CallBack_ET=cbet CallBack_CT=cbct", "stck", **v["v5"]),
        F("CallBack_Count", "cbn", **v["v5"]),
        F("Open_Suspend_Time", "opensuet", "stck", **v["v6"]),
        F("Open_Suspend_Count", "opensun", **v["v6"]),
        F("Close_Suspend_Time", "closesuet", "stck", **v["v6"]),
        *_u("Close_Suspend_Count=closesun Open_NoCF=opencf0 Close_NoCF=closecf0", **v["v6"]),
        *cf,
        F("Published_Count", "publishedn", **v["v6"]),
        *_u(
            "TopicOnSRB_Open=topicopensrb TopicOnSRB_Put=topicputsrb "
            "TopicOnSRB_Put1=topicput1srb TopicOnSRB_Close=topicclosesrb",
            "stck",
            **v["v6"],
        ),
        F("Put_Delay_Count", "putddly", **v["v8"]),
        F("Streamed_Msgs", "streamedn", **v["v9"]),
    ]


WQ = Structure(
    "WQ",
    "wqid:h wqll:h wqeye:4s wqver:i wqnext:I correl:16s objname:48s basename:48s opentime:Q "
    "clostime:Q qtype:i indxtype:i qsgdisp:i openeye:4s openet:Q openct:Q openn:I "
    "closeeye:4s closeet:Q closect:Q closen:I geteye:4s getet:Q getct:Q getn:I getbrwa:I "
    "getbrws:I geta:I gets:I geterr:I getjwet:Q getjwn:I getpset:Q getpsn:I getsuset:Q "
    "getsusn:I getepage:I getsmsg:I getexmsg:I puteye:4s putet:Q putct:Q putn:I putjwet:Q "
    "putjwn:I putsuset:Q putsusn:I putpset:Q putpsn:i put1eye:4s put1et:Q put1ct:Q put1n:I "
    "put1jwet:Q put1jwn:I put1suset:Q put1susn:I put1pset:Q put1psn:i inqeye:4s inqet:Q "
    "inqct:Q inqn:I seteye:4s setet:Q setct:Q setn:I setjwet:Q setjwn:I nps:I "
    "cfstrucname:12s nbuffpool:I putbytes:Q getbytes:Q validput:I validget:I ngen:I "
    "getmaxms:i getminms:i putmaxms:i putminms:i maxlatnt:Q minlatnt:Q totlatnt:Q wqback:I "
    "use_count:i total_use:i getpmsg:i putpmsg:i put1pmsg:i maxqdpth:i flags:H z001:2x "
    "getdval:I getjcet:Q getjcn:I putpwg:I putjcet:Q putjcn:I put1pwg:I put1jcet:Q put1jcn:I "
    "setjcet:Q setjcn:I putdsq:I putigq:I put1igq:I z002:4x selcount:I selmaxln:I cbeye:4s "
    "cbet:Q cbct:Q cbn:I opensuet:Q opensun:I closesuet:Q closesun:I opencf0:I closecf0:I "
    + " ".join(_cfstat(f"cf{i}", 20) for i in range(5))
    + " publishedn:I z003:12x topicopensrb:Q topicputsrb:Q topicput1srb:Q topicclosesrb:Q "
    "putddly:I z004:4x streamedn:I z005:4x",
    _wq_fields(),
    "Queue accounting (class 3): one row per queue per task per accounting record (SMF 116.1/2).",
    length_member="wqll",
    version_member="wqver",
)

STRUCTURES: dict[str, Structure] = {
    s.name: s
    for s in (
        QMST,
        QJST,
        QSST,
        QPST,
        QLST,
        QIST,
        QTST,
        QEST,
        QESD,
        Q5ST,
        QSGM,
        QSPH,
        QSRS,
        QIS1,
        QCCT,
        QCTDSP,
        QCTADP,
        QCTSSL,
        QCTDNS,
        QCST,
        QMAC,
        WTAS,
        WQ,
        WTID,
    )
}
